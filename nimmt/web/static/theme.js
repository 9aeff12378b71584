// The page's theme: the system's setting, or light or dark as the person chose (kept in this
// browser). A classic script loaded in <head> without defer, so the theme is set before the page
// is drawn (no flash of the other theme); the style sheet reads <html data-theme="light|dark">,
// and no data-theme means "as the system".
(function () {
  "use strict";
  var KEY = "nimmt_theme";
  var root = document.documentElement;
  var colours = null; // each theme-color <meta>'s own colour, as the layout gives it

  function stored() {
    var value = null;
    try {
      value = window.localStorage.getItem(KEY);
    } catch (error) {
      // storage refused (private mode, blocked cookies): follow the system
    }
    return value === "light" || value === "dark" ? value : "system";
  }

  function apply(choice) {
    if (choice === "light" || choice === "dark") root.setAttribute("data-theme", choice);
    else root.removeAttribute("data-theme");
    // The browser's own bar follows the page: a chosen theme's colour whatever the system says.
    var metas = document.querySelectorAll('meta[name="theme-color"]');
    if (colours === null) {
      colours = {};
      for (var i = 0; i < metas.length; i++) {
        var media = metas[i].getAttribute("media") || "";
        colours[media.indexOf("dark") >= 0 ? "dark" : "light"] = metas[i].getAttribute("content");
      }
    }
    for (var j = 0; j < metas.length; j++) {
      var own = (metas[j].getAttribute("media") || "").indexOf("dark") >= 0 ? "dark" : "light";
      metas[j].setAttribute("content", colours[choice === "system" ? own : choice] || colours[own]);
    }
  }

  function save(choice) {
    try {
      if (choice === "system") window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, choice);
    } catch (error) {
      // not kept: this page still shows the choice
    }
  }

  apply(stored());

  document.addEventListener("DOMContentLoaded", function () {
    var control = document.getElementById("theme-control");
    var select = document.getElementById("theme-select");
    if (!control || !select) return;
    select.value = stored();
    select.addEventListener("change", function () {
      save(select.value);
      apply(select.value);
    });
    control.hidden = false; // without this script the control could do nothing: it stays hidden
  });

  // Another tab of this site changed the theme: follow it.
  window.addEventListener("storage", function (event) {
    if (event.key !== KEY && event.key !== null) return;
    var choice = stored();
    apply(choice);
    var select = document.getElementById("theme-select");
    if (select) select.value = choice;
  });
})();
