// The search page: Pagefind's UI over the static index (the main bundle, with the parts listed
// in data-bundles merged in); a ?q= query (from the search form of every page) is run on load.
window.addEventListener("DOMContentLoaded", function () {
  var box = document.getElementById("search");
  var base = new URL(box.dataset.root || "./", window.location.href).pathname;
  var parts = JSON.parse(box.dataset.bundles || "[]").map(function (folder) {
    return { bundlePath: base + folder + "/", baseUrl: base };
  });
  var ui = new PagefindUI({
    element: "#search",
    baseUrl: base,
    mergeIndex: parts,
    showImages: false,
    resetStyles: false,
  });
  var query = new URLSearchParams(window.location.search).get("q");
  if (query) {
    ui.triggerSearch(query);
  }
});
