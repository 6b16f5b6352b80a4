"""Copy MathJax into a folder so the built HTML works offline: tools/vendor_assets.py _vendor.

MathJax 3.2.2 comes from the PyPI wheel ``django-static-mathjax`` (no Django needed to read its
files); ``_config.yml`` serves the folder (``html_static_path``, ``mathjax_path``).
"""

import importlib.util
import shutil
import sys
from pathlib import Path

# tex-chtml.js and the parts it loads on demand (fonts, TeX extensions, menu, accessibility).
MATHJAX_PARTS = "tex-chtml.js input/tex/extensions output/chtml ui a11y sre".split()


def vendor(target: Path) -> None:
    """Copy MathJax's parts to ``target/mathjax``, replacing ``target`` whole."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("MathJax not found: install the pinned django-static-mathjax")
    source = Path(spec.submodule_search_locations[0]) / "static" / "mathjax" / "es5"
    if not (source / "tex-chtml.js").is_file():
        sys.exit(f"MathJax's tex-chtml.js is missing under {source}")
    staging = target.with_name(target.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    for part in MATHJAX_PARTS:
        src, dst = source / part, staging / "mathjax" / part
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    print(f"vendored MathJax from {source} into {target / 'mathjax'}")


if __name__ == "__main__":
    vendor(Path(sys.argv[1] if len(sys.argv) > 1 else "_vendor"))
