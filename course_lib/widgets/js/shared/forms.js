// The kernel-only ask form, and sending its text to the kernel.
// A shared file of widgets/js: whole, plain declarations (no import or export);
// base.js_source puts it in front of each module that uses one of its names.

// A kernel-only form: a text box and a submit button (the caller appends its message).
function askForm(className, placeholder, label, action) {
  const ask = make("form", className);
  ask.setAttribute("data-kernel-only", "");
  const text = control(make("input"));
  text.type = "text";
  text.placeholder = placeholder;
  text.setAttribute("aria-label", label);
  const go = control(make("button", null, action));
  go.type = "submit";
  // JupyterLab swallows Enter's implicit submission inside an output (jupyterlab#6555)
  text.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      ask.requestSubmit();
    }
  });
  ask.append(text, go);
  return { ask, text, go };
}

// Sends the ask form's text to the kernel as the "request" trait (the Python side answers).
function sendRequests(model, ask, text) {
  ask.addEventListener("submit", (event) => {
    event.preventDefault();
    model.set("request", text.value);
    model.save_changes();
  });
}
