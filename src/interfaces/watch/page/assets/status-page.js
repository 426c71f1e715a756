// The status page's behaviour, served by the watcher (/assets/status-page.js): the CSP allows no
// inline script. It keeps the page current without a reload: on each change the server announces
// (server-sent events from /api/v1/stream), it fetches the same page again and swaps its
// <main id="content"> for the fresh one. The server renders (and escapes) everything; this script
// only moves the server's elements, it builds no markup from data. Without EventSource, or when the
// stream keeps failing, it polls instead.
"use strict";
(function () {
  var POLL_MS = 10000;
  var live = document.getElementById("live");
  var stack = document.body.getAttribute("data-stack");
  var busy = false;
  var again = false;
  var pollTimer = null;

  function say(text) {
    if (live) live.textContent = text;
  }

  function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    // With the query: a stack page's databases stay filtered and paged as the address says.
    fetch(window.location.pathname + window.location.search, {
      headers: { accept: "text/html" },
      credentials: "same-origin",
      cache: "no-store",
    })
      .then(function (res) {
        if (!res.ok && res.status !== 404) throw new Error("HTTP " + res.status);
        return res.text();
      })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, "text/html");
        var fresh = doc.getElementById("content");
        var current = document.getElementById("content");
        if (!fresh || !current) throw new Error("the page has no content element");
        current.replaceWith(document.adoptNode(fresh));
        document.title = doc.title;
        var rev = doc.body.getAttribute("data-revision");
        if (rev !== null) document.body.setAttribute("data-revision", rev);
        say("Updated " + new Date().toLocaleTimeString());
      })
      .catch(function (e) {
        say("Could not refresh: " + e.message);
      })
      .then(function () {
        busy = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  }

  function poll() {
    if (pollTimer === null) pollTimer = window.setInterval(refresh, POLL_MS);
  }

  if (typeof window.EventSource !== "function") {
    poll();
    return;
  }
  var opened = false;
  var failures = 0;
  var source = new EventSource("/api/v1/stream");
  source.addEventListener("open", function () {
    failures = 0;
    // After a reconnect, changes may have been missed while the stream was down.
    if (opened) refresh();
    opened = true;
    say("Live");
  });
  function changed(ev) {
    var name;
    try {
      name = JSON.parse(ev.data).name;
    } catch {
      name = null;
    }
    if (stack === null || name === null || name === stack) refresh();
  }
  source.addEventListener("status", changed);
  source.addEventListener("removed", changed);
  source.addEventListener("error", function () {
    failures += 1;
    say("Reconnecting…");
    if (failures >= 5) {
      source.close();
      say("Live updates unavailable: refreshing every " + POLL_MS / 1000 + " s");
      poll();
    }
  });
})();
