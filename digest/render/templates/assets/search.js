// The search page: Pagefind's UI over the static index; a ?q= query (from the search form of
// every page) is run on load.
window.addEventListener("DOMContentLoaded", function () {
  var box = document.getElementById("search");
  var base = new URL(box.dataset.root || "./", window.location.href).pathname;
  var ui = new PagefindUI({ element: "#search", baseUrl: base, showImages: false, resetStyles: false });
  var query = new URLSearchParams(window.location.search).get("q");
  if (query) {
    ui.triggerSearch(query);
  }
});
