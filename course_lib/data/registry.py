"""The course's data sets: every file pinned to a public URL, its sha256 and its size.

Each :class:`FileSpec` pins the bytes served at a tag- or commit-pinned public URL. The
offline mirror (``COURSE_LIB_DATA``, see :mod:`course_lib.data.fetch`) may hold a file
as ``<name>.gz`` (``gzip -9 -n``); its *decompressed* content has the pinned sha256, so
one pin verifies both a download and a mirror copy. Files whose upstream is itself
gzip (Multi30k) are marked ``gzipped=True`` and pinned by the sha256 of the ``.gz``
bytes. Sources, counts and hashes come from ``shared/data/*/README.md``.
"""

from __future__ import annotations

from course_lib.data.errors import UnknownNameError
from course_lib.data.spec import Dataset, FileSpec, unknown_name

__all__ = ["DATASETS", "FSDD_RECORDINGS_URL", "Dataset", "FileSpec", "get_dataset"]

_GH = "https://raw.githubusercontent.com"


def get_dataset(name: str) -> Dataset:
    """The registered data set ``name``; an unknown name raises :class:`UnknownNameError`.

    The message lists the known names and suggests the closest one.
    """
    if not isinstance(name, str) or name not in DATASETS:
        raise UnknownNameError(unknown_name(f"data set {name!r}", name, DATASETS))
    return DATASETS[name]


def _files(base: str, *specs: tuple[str, str, int], gzipped: bool = False) -> tuple:
    return tuple(FileSpec(n, f"{base}/{n}", h, b, gzipped) for n, h, b in specs)


_EWT = f"{_GH}/UniversalDependencies/UD_English-EWT/r2.16"
_WT2 = (
    f"{_GH}/pytorch/examples/77f55b912142e11fcfdf5b530231fb9c52f181e8"
    "/word_language_model/data/wikitext-2"
)
_M30K = (
    f"{_GH}/multi30k/dataset/a3d2e0d26b56f3846f66a952536ffed4e401d05a/data/task1/raw"
)
_TATOEBA = f"{_GH}/modelexlab/data/adddaf33ac35572bcfeb421efec29435e7ea9332"
_GENSIM = f"{_GH}/piskvorky/gensim/4.4.0/gensim/test/test_data"
_FSDD_COMMIT = "26eb9aaf76e81b692f806f9140c2d2777410d7a1"
FSDD_RECORDINGS_URL = (
    f"{_GH}/Jakobovski/free-spoken-digit-dataset/{_FSDD_COMMIT}/recordings/"
)
_SST2 = (
    f"{_GH}/awake020/pytorch_Bert_sst2/ce2ab1719d32182e6233b24b2de246bd32814fde/SST-2"
)

DATASETS: dict[str, Dataset] = {}  # filled below; tests may monkeypatch entries

DATASETS["ud_english_ewt"] = Dataset(
    name="ud_english_ewt",
    title="Universal Dependencies English Web Treebank v2.16 (CoNLL-U)",
    files=_files(
        _EWT,
        (
            "en_ewt-ud-train.conllu",
            "3fb78e2b55482c8ee00caa653af436c88c9e5bc9a73ce26e4ae3ddc79d2b7e7b",
            14_203_025,
        ),
        (
            "en_ewt-ud-dev.conllu",
            "531a54ff90d6ab12201c5a50c3e78e6ddac4de69abc4bce5d275d3cd29efe2b6",
            1_805_545,
        ),
        (
            "en_ewt-ud-test.conllu",
            "e266e515a0a7547657ed3d90d9ba46487d6bd251f27ad4269d4e8a427c8555cd",
            1_804_515,
        ),
        (
            "LICENSE.txt",
            "b3d1b0f4c6ae151f7eb78738f46ebd5ee140f8a7f76501ba26af123140d35ae7",
            20_014,
        ),
    ),
    licence="CC BY-SA 4.0",
    citation="""@inproceedings{silveira14gold,
  year      = {2014},
  author    = {Natalia Silveira and Timothy Dozat and Marie-Catherine de Marneffe and
               Samuel Bowman and Miriam Connor and John Bauer and Christopher D. Manning},
  title     = {A Gold Standard Dependency Corpus for {E}nglish},
  booktitle = {Proceedings of the Ninth International Conference on Language Resources
               and Evaluation (LREC-2014)}
}""",
    homepage="https://github.com/UniversalDependencies/UD_English-EWT",
    attribution="Annotations (c) 2013-2021 The Board of Trustees of The Leland Stanford "
    "Junior University; texts from the LDC English Web Treebank (LDC2012T13).",
    note="Tag r2.16; train/dev/test 12,544 / 2,001 / 2,077 sentences, "
    "204,577 / 25,147 / 25,094 words. ShareAlike applies to derived files.",
)

DATASETS["wikitext-2"] = Dataset(
    name="wikitext-2",
    title="WikiText-2 (tokenized, wikitext-2-v1)",
    files=_files(
        _WT2,
        (
            "train.txt",
            "9e9fa1ad55b1c2c95b08e37dd8e653f638fac2c6de904b79e813611eefbc985f",
            10_797_148,
        ),
        (
            "valid.txt",
            "f0737ed31fc1329026e95cb8b98e19c2a182c39c240ab909dc31abf2f8af58e8",
            1_121_681,
        ),
        (
            "test.txt",
            "d790b833ef8cf03a90db7bf1271b7520b83c45ce07ba3c1a9699df81e239eca0",
            1_256_449,
        ),
    ),
    licence="CC BY-SA (3.0 per the Hugging Face card) / GFDL; Wikipedia text",
    citation="""@inproceedings{merity2017pointer,
  title     = {Pointer Sentinel Mixture Models},
  author    = {Stephen Merity and Caiming Xiong and James Bradbury and Richard Socher},
  booktitle = {International Conference on Learning Representations (ICLR)},
  year      = {2017},
  note      = {arXiv:1609.07843}
}""",
    homepage="https://github.com/pytorch/examples/tree/main/word_language_model",
    attribution="Merity et al. (Salesforce Research) and the Wikipedia contributors "
    "of the source articles.",
    note="Tokens incl. one <eos> per line: 2,088,628 / 217,646 / 245,569; "
    "vocabulary 33,278. ShareAlike applies to derived files.",
)

DATASETS["tatoeba_eng_fra"] = Dataset(
    name="tatoeba_eng_fra",
    title="Tatoeba English-French sentence pairs (manythings.org, 2019-04-07)",
    # Both files are members of fra-eng.zip (3,424,571 bytes) at that commit, the copy
    # named in shared/data/tatoeba_eng_fra/README.md; the pins are the members' own.
    # (The repository also stores the same fra.txt blob loose, per that README, but
    # its path is not documented; the zip is also the smaller download.)
    files=(
        FileSpec(
            "fra.txt",
            f"{_TATOEBA}/fra-eng.zip",
            "0bb85dbaa1c896844649094d7eaf2e34bee34e84fe362b26ce7e8f2e12aae104",
            11_669_748,
            member="fra-eng/fra.txt",
        ),
        FileSpec(
            "_about.txt",
            f"{_TATOEBA}/fra-eng.zip",
            "79f39a53dbddaf7ab43c801f231089174a611f23987244056f9e3cb5aa79358b",
            1_441,
            member="fra-eng/_about.txt",
        ),
    ),
    licence="CC BY 2.0 FR",
    citation="Tatoeba Project, https://tatoeba.org (sentences and translations, "
    "CC BY 2.0 FR); pairs selected and exported by manythings.org, "
    "https://www.manythings.org/anki/ (2019-04-07 release).",
    homepage="https://www.manythings.org/anki/",
    attribution="www.manythings.org/anki and tatoeba.org",
    note="167,130 pairs, English<TAB>French. French spacing before ! ? : ; mixes "
    "U+202F, U+00A0 and plain spaces (normalised by the reader).",
)

DATASETS["multi30k_en_de"] = Dataset(
    name="multi30k_en_de",
    title="Multi30k Task 1, English-German raw captions",
    files=_files(
        _M30K,
        (
            "train.en.gz",
            "d79cfa999dd4c51d2cb42499b6796d5a882c3a8a961923c25a898c90f8bbd56f",
            568_929,
        ),
        (
            "train.de.gz",
            "726e39b2fa9eb9ffb6dc763fb35a179f80fae06ffc5d28b6ace5faa883de28a6",
            637_044,
        ),
        (
            "val.en.gz",
            "14f7d25ddd868909a9213e361768460edcacdd6ab9d1e77b92560dc10c10dc28",
            21_650,
        ),
        (
            "val.de.gz",
            "f0cba2f995189cf5770f29a8a9a537a3ad3f51657ad873405082ff6863a5e75a",
            24_681,
        ),
        (
            "test_2016_flickr.en.gz",
            "611d361c6334bc7246101d48097c13cf5c4413c5befc793cc629934359d532d9",
            21_077,
        ),
        (
            "test_2016_flickr.de.gz",
            "9204244e408ccb38d2a55cfcd344df15005fc42a07a6e55ca6c52b6ababb8cc8",
            22_890,
        ),
        gzipped=True,
    ),
    licence="Not open: non-commercial research and educational use only "
    "(the Flickr30K terms, per the maintainers in multi30k/dataset#8)",
    citation="""@InProceedings{W16-3210,
  author    = {Elliott, Desmond and Frank, Stella and Sima'an, Khalil and Specia, Lucia},
  title     = {Multi30K: Multilingual English-German Image Descriptions},
  booktitle = {Proceedings of the 5th Workshop on Vision and Language},
  year      = {2016},
  publisher = {Association for Computational Linguistics},
  pages     = {70--74},
  doi       = {10.18653/v1/W16-3210}
}""",
    homepage="https://github.com/multi30k/dataset",
    attribution="Elliott et al. (2016); captions from Flickr30K.",
    note="Download only: do not redistribute or commit any of its text. "
    "train/val/test_2016_flickr: 29,000 / 1,014 / 1,000 pairs.",
    redistributable=False,
)

DATASETS["word_vector_eval"] = Dataset(
    name="word_vector_eval",
    title="Word-vector evaluation: Google analogies, WordSim-353, SimLex-999 (gensim)",
    files=_files(
        _GENSIM,
        (
            "questions-words.txt",
            "8c29b3332afc46f3fb8be04cb5297bf96f39aa7131272dff57869b4485b22a36",
            603_955,
        ),
        (
            "wordsim353.tsv",
            "f92a022fc2537793a15bc3a8c162ebcd74990e033a228bb6388cb71e4c0b1e1d",
            7_186,
        ),
        (
            "simlex999.txt",
            "d5e0501971478a511430ee880bd0121e94ac701ba86d90544d83e6d2ba3db05d",
            18_126,
        ),
    ),
    licence="Distributed in gensim (LGPL-2.1-only); analogies from word2vec "
    "(Apache-2.0); WordSim-353 and SimLex-999: no formal licence (research use)",
    citation="""@article{mikolov2013efficient,
  title   = {Efficient Estimation of Word Representations in Vector Space},
  author  = {Tomas Mikolov and Kai Chen and Greg Corrado and Jeffrey Dean},
  journal = {arXiv preprint arXiv:1301.3781}, year = {2013}
}
@article{finkelstein2002placing,
  title   = {Placing Search in Context: The Concept Revisited},
  author  = {Lev Finkelstein and Evgeniy Gabrilovich and Yossi Matias and Ehud Rivlin
             and Zach Solan and Gadi Wolfman and Eytan Ruppin},
  journal = {ACM Transactions on Information Systems},
  volume  = {20}, number = {1}, pages = {116--131}, year = {2002}
}
@article{hill2015simlex,
  title   = {{SimLex-999}: Evaluating Semantic Models With (Genuine) Similarity
             Estimation},
  author  = {Felix Hill and Roi Reichart and Anna Korhonen},
  journal = {Computational Linguistics},
  volume  = {41}, number = {4}, pages = {665--695}, year = {2015}
}""",
    homepage="https://github.com/piskvorky/gensim/tree/4.4.0/gensim/test/test_data",
    attribution="Mikolov et al. (2013); Finkelstein et al. (2002); Hill, Reichart "
    "and Korhonen (2015); the gensim project.",
    note="19,544 analogy questions in 14 sections; 353 + 999 scored pairs.",
)

DATASETS["fsdd"] = Dataset(
    name="fsdd",
    title="Free Spoken Digit Dataset v1.0.10 (3,000 WAV recordings, 8 kHz)",
    # The archive is the mirror's own packing (shared/data/fsdd): `git archive` of
    # recordings/ at the commit below, `gzip -9 -n` (recordings identical to tag v1.0.10).
    # Nobody publishes it: the public source is each WAV at FSDD_RECORDINGS_URL + name,
    # pinned by the manifest shipped with the package (course_lib/data/fsdd_manifest.sha256).
    # Without a mirror or cached archive, course_lib.data.fsdd downloads those files.
    files=(
        FileSpec(
            "recordings.tar.gz",
            FSDD_RECORDINGS_URL,
            "2d178c1fd9c2a4522b8dcc3c360c6c86bdfd4e1904a9d1f4bc79ce603d24cbf2",
            15_558_071,
            gzipped=True,
        ),
    ),
    licence="CC BY-SA 4.0",
    citation="Zohar Jackson, Cesar Souza, Jason Flaks, Yuxin Pan, Hereman Nicolas, "
    "Adhish Thite, Jakobovski/free-spoken-digit-dataset: v1.0.8, Zenodo, 2018, "
    "doi:10.5281/zenodo.1342401.",
    homepage="https://github.com/Jakobovski/free-spoken-digit-dataset",
    attribution="Jackson et al. and the FSDD contributors.",
    note="6 speakers x 10 digits x 50 recordings; official split: index 0-4 test, "
    "5-49 train. recordings.tar.gz is the mirror's packing; the public source is each "
    f"WAV at {FSDD_RECORDINGS_URL}<name>.wav, fetched one by one when no mirror has it.",
)

DATASETS["sst2"] = Dataset(
    name="sst2",
    title="SST-2, the binary Stanford Sentiment Treebank (GLUE train/dev, labelled test)",
    files=_files(
        _SST2,
        (
            "train.tsv",
            "e981ceb4fe6c9acd1c79851d0d091b9e78103f1f2a399ca83dda27915d41c56c",
            3_806_081,
        ),
        (
            "dev.tsv",
            "84207e6be5873fb18db798cc6faec86871f5a426554650ff64a1c34e87665f6f",
            94_414,
        ),
        (
            "test.tsv",
            "fcd46f967b7b8efd8b5398481dadf873886298d092195167af907fd532e81e1c",
            193_576,
        ),
    ),
    licence="No formal licence published (research use); download only",
    citation="""@inproceedings{socher2013recursive,
  title     = {Recursive Deep Models for Semantic Compositionality Over a Sentiment
               Treebank},
  author    = {Richard Socher and Alex Perelygin and Jean Wu and Jason Chuang and
               Christopher D. Manning and Andrew Ng and Christopher Potts},
  booktitle = {Proceedings of EMNLP}, pages = {1631--1642}, year = {2013}
}""",
    homepage="https://nlp.stanford.edu/sentiment/",
    attribution="Socher et al. (2013); GLUE (Wang et al., 2019) train/dev splits.",
    note="Download only: do not redistribute or commit any of its text. "
    "train/dev/test: 67,349 / 872 / 1,821 (train holds phrases too).",
    redistributable=False,
)
