// The instructor's page: the live class report (GET /v1/class.html, the batch's page),
// the gradebook (GET /v1/gradebook.csv) and a learner's history, all with the
// instructor's bearer token, which stays in this tab (sessionStorage), never in a URL.
"use strict";

const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem("jj-instructor-token") || "";
let timer = null;

async function call(path) {
  const answer = await fetch(path, { headers: { Authorization: "Bearer " + token },
                                     cache: "no-store", redirect: "error" });
  if (!answer.ok) {
    let why = answer.statusText;
    try { why = (await answer.json()).error || why; } catch (e) { /* not JSON */ }
    throw new Error(`${answer.status}: ${why}`);
  }
  return answer;
}

function fail(error) {
  $("error").textContent = String(error.message || error);
  $("error").hidden = false;
}

async function showClass() {
  try {
    const html = await (await call("/v1/class.html")).text();
    $("class").srcdoc = html;
    $("class").hidden = false;
    $("tools").hidden = false;
    $("error").hidden = true;
    $("updated").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (error) {
    fail(error);
  }
}

async function showHistory(learner) {
  try {
    const body = await (await call(`/v1/learners/${encodeURIComponent(learner)}/submissions`)).json();
    const rows = $("history").querySelector("tbody");
    rows.replaceChildren();
    for (const s of body.submissions) {
      const tr = document.createElement("tr");
      tr.dataset.id = s.id;
      for (const text of [s.created_at, s.task, s.state, s.verdict || "",
                          s.points === undefined ? "" : `${s.points} of ${s.max_points}`]) {
        const td = document.createElement("td");
        td.textContent = text;          // text only: nothing a learner sent becomes markup
        tr.append(td);
      }
      rows.append(tr);
    }
    $("history").hidden = false;
    $("error").hidden = true;
  } catch (error) {
    fail(error);
  }
}

async function downloadCsv() {
  try {
    const blob = await (await call("/v1/gradebook.csv")).blob();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "gradebook.csv";
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  } catch (error) {
    fail(error);
  }
}

$("token").value = token;
$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token").value.trim();
  sessionStorage.setItem("jj-instructor-token", token);
  showClass();
  clearInterval(timer);
  timer = setInterval(showClass, 20000);
});
$("learner-form").addEventListener("submit", (event) => {
  event.preventDefault();
  showHistory($("learner").value.trim());
});
$("csv").addEventListener("click", downloadCsv);
if (token) {
  showClass();
  timer = setInterval(showClass, 20000);
}
