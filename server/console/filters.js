// toolgate console: filters on the live events, by session, tool and
// kind. A card a filter hides stays in the timeline (its stream keeps
// updating it, and it is filtered again on every update) and shows again
// when the filter changes. Uses state and el() from console.js.
"use strict";

const filters = { session: "", tool: "", kind: "" };

// failedStates are the final statuses other than succeeded.
const failedStates = new Set(["failed", "invalid", "denied", "unknown_tool", "cancelled", "skipped"]);

// cardKind is what the filter's kind matches: a message's end, or a call
// awaiting a decision, running (queued included), succeeded or not.
function cardKind(node) {
  if (node.dataset.kind === "message") return "message";
  if (node.classList.contains("awaiting")) return "awaiting";
  const st = (node.querySelector(".state") || {}).textContent || "";
  if (st === "succeeded") return "succeeded";
  if (failedStates.has(st)) return "failed";
  return "running";
}

// applyFilter shows or hides one timeline entry.
function applyFilter(node) {
  const name = ((node.querySelector(".name") || {}).textContent || "").toLowerCase();
  let show = true;
  if (filters.session && node.dataset.session !== filters.session) show = false;
  if (filters.tool && (node.dataset.kind === "message" || !name.includes(filters.tool.toLowerCase()))) show = false;
  if (filters.kind && cardKind(node) !== filters.kind) show = false;
  node.hidden = !show;
}

function applyFilters() {
  let hidden = 0;
  const all = document.querySelectorAll("#timeline > li");
  for (const li of all) {
    applyFilter(li);
    if (li.hidden) hidden++;
  }
  document.getElementById("filter-note").textContent = hidden ? hidden + " of " + all.length + " hidden" : "";
}

// renderFilterSessions offers the sessions whose events are streamed.
function renderFilterSessions() {
  const sel = document.getElementById("filter-session");
  const keep = sel.value;
  const ids = [...state.streams.keys()];
  sel.replaceChildren(el("option", { value: "" }, "all watched"), ...ids.map((id) => el("option", { value: id }, id)));
  sel.value = ids.includes(keep) ? keep : "";
  if (filters.session !== sel.value) {
    filters.session = sel.value;
    applyFilters();
  }
}

function initFilters() {
  const form = document.getElementById("filters");
  const read = () => {
    filters.session = document.getElementById("filter-session").value;
    filters.tool = document.getElementById("filter-tool").value.trim();
    filters.kind = document.getElementById("filter-kind").value;
    applyFilters();
  };
  form.addEventListener("submit", (ev) => ev.preventDefault());
  form.addEventListener("input", read);
  form.addEventListener("change", read);
}

document.addEventListener("DOMContentLoaded", initFilters);
