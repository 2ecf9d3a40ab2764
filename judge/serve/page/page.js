// The service's page: pick a task, edit the starter, submit, watch, read the report.
// Plain browser JavaScript talking to the service's own /v1 API: no build step, no network.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { tasks: {}, current: null, wanted: null, token: localStorage.getItem("jj-token") || "" };

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers.Authorization = "Bearer " + state.token;
  const answer = await fetch(path, { ...options, headers });
  const type = answer.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await answer.json() : await answer.text();
  if (!answer.ok) {
    const message = (body && body.error) || `HTTP ${answer.status}`;
    const error = new Error(message);
    error.status = answer.status;
    throw error;
  }
  return { status: answer.status, body };
}

function say(text, kind = "", stateName = "") {
  const line = $("state");
  line.textContent = text;
  line.className = kind;
  line.dataset.state = stateName;
}

function draftKey(taskId) { return "jj-draft-" + taskId; }

async function loadTasks() {
  const { body } = await api("/v1/tasks");
  $("course").textContent = body.course || "";
  const select = $("task");
  select.textContent = "";
  for (const step of body.steps) {
    const group = document.createElement("optgroup");
    group.label = `Step ${step.step}: ${step.title || ""}`;
    for (const task of step.tasks) {
      const option = document.createElement("option");
      option.value = task.id;
      option.textContent = task.title ? `${task.id} — ${task.title}` : task.id;
      group.appendChild(option);
    }
    select.appendChild(group);
  }
  const wanted = new URLSearchParams(location.search).get("task") || localStorage.getItem("jj-task");
  if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
  await showTask(select.value);
}

async function showTask(taskId) {
  // the task last asked for wins: an earlier task's answer that arrives after a later
  // choice (the first task loading while the learner already picked another) is not shown
  state.wanted = taskId;
  if (!state.tasks[taskId]) state.tasks[taskId] = (await api(`/v1/tasks/${encodeURIComponent(taskId)}`)).body;
  if (state.wanted !== taskId) return;
  const task = state.tasks[taskId];
  state.current = taskId;
  localStorage.setItem("jj-task", taskId);
  $("signature").textContent = task.signature;
  $("statement").innerHTML = task.statement_html;   // the bank's own text, rendered by the service
  $("source").value = localStorage.getItem(draftKey(taskId)) ?? task.starter;
  $("report").textContent = "";
  say("");
}

async function submit() {
  const taskId = state.current;
  const button = $("submit");
  button.disabled = true;
  $("report").textContent = "";
  const started = performance.now();
  try {
    say("sending", "", "queued");
    const { body } = await api("/v1/submissions", {
      method: "POST", body: JSON.stringify({ task: taskId, source: $("source").value }),
    });
    const id = body.id;
    $("report").dataset.submission = id;
    for (;;) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const answer = await api(`/v1/submissions/${id}?wait=1`);
      if (answer.status === 200) {
        say(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`, "", "done");
        const report = await fetch(`/v1/submissions/${id}/report.html`, {
          headers: state.token ? { Authorization: "Bearer " + state.token } : {},
        });
        $("report").innerHTML = await report.text();   // escaped by the service
        break;
      }
      const pending = answer.body;
      const ahead = pending.ahead ? ` (${pending.ahead} ahead)` : "";
      say(`${pending.state}${ahead}, ${seconds} s`, "", pending.state);
    }
  } catch (error) {
    say(error.message, "error", "error");
  } finally {
    button.disabled = false;
  }
}

async function showHealth() {
  try {
    const { body } = await api("/healthz");
    $("token-row").hidden = body.access !== "token";
    $("health").textContent = `${body.grading_slots} grading slots, ${body.queue} waiting`;
    return body;
  } catch (error) {
    $("health").textContent = error.message;
    return null;
  }
}

function keepTabs(event) {
  if (event.key !== "Tab" || event.shiftKey) return;
  event.preventDefault();
  const area = event.target;
  const at = area.selectionStart;
  area.setRangeText("    ", at, area.selectionEnd, "end");
}

async function start() {
  $("token").value = state.token;
  $("token").addEventListener("change", async (event) => {
    state.token = event.target.value.trim();
    localStorage.setItem("jj-token", state.token);
    await loadTasks().catch((error) => say(error.message, "error", "error"));
  });
  $("task").addEventListener("change", (event) => showTask(event.target.value));
  $("source").addEventListener("keydown", keepTabs);
  $("source").addEventListener("input", () => localStorage.setItem(draftKey(state.current), $("source").value));
  $("reset").addEventListener("click", () => {
    localStorage.removeItem(draftKey(state.current));
    $("source").value = state.tasks[state.current].starter;
  });
  $("submit").addEventListener("click", submit);
  await showHealth();
  await loadTasks().catch((error) => say(error.message, "error", "error"));
}

start();
