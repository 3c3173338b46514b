// doceval console, document viewer: brings the first highlight into view once the page
// image has its size. Without it the page still shows every highlight.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var hl = document.querySelector(".highlight");
  var img = document.getElementById("page-image");
  if (!hl || !img) return;
  var show = function () { hl.scrollIntoView({ block: "center", inline: "nearest" }); };
  if (img.complete && img.naturalHeight) show();
  else img.addEventListener("load", show, { once: true });
});
