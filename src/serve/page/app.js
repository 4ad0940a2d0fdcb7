// ptx-litmus playground: the page's script, written by hand (no build step).
// It talks to the JSON API of `ptx-litmus serve` (src/serve/api.rs).
"use strict";

const $ = (id) => document.getElementById(id);
const ui = {
  info: null, // GET /api/info
  last: null, // the last POST /api/check answer
  seq: 0, // answers to older requests are dropped
  timer: null,
  undo: null, // the text before the last what-if edit
  whatIf: null, // the verdict before the last what-if edit
};

const SEMS = ["weak", "relaxed", "acquire", "release", "acq_rel", "sc", "volatile"];
const SCOPES = ["cta", "cluster", "gpu", "sys"];
const OPCODES = new Set(["ld", "st", "atom", "red", "fence", "membar", "bar", "barrier", "mov", "add", "sub",
  "and", "or", "xor", "setp", "bra", "cvta", "mul", "mad", "call", "ret", "exit", "cp", "cas", "exch", "selp",
  "not", "shl", "shr", "neg", "min", "max", "isspacep", "ldu", "prefetch", "fence.proxy", "mbarrier"]);
const KEYWORDS = new Set(["PTX", "C", "exists", "forall", "locations", "filter", "true", "false"]);

function esc(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

async function getJSON(url) {
  const r = await fetch(url);
  return r.json();
}

async function postJSON(url, body) {
  const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) });
  return r.json();
}

// ---------------------------------------------------------------- highlighting

// One class per character of `line` (null: plain).
function lineClasses(line) {
  const cls = new Array(line.length).fill(null);
  const re = /("[^"]*"?)|(%?[A-Za-z_$][\w$]*(?:\.[\w$]+)*)|(-?\b\d+\b)/g;
  let m;
  while ((m = re.exec(line)) !== null) {
    const set = (from, to, c) => { for (let i = from; i < to; i++) cls[i] = c; };
    const at = m.index;
    if (m[1]) { set(at, at + m[1].length, "t-s"); continue; }
    if (m[3]) { set(at, at + m[3].length, "t-n"); continue; }
    const word = m[2];
    const head = word.split(".")[0];
    if (KEYWORDS.has(word) || /^P\d+$/.test(word)) set(at, at + word.length, "t-kw");
    else if (OPCODES.has(head)) {
      set(at, at + head.length, "t-op");
      set(at + head.length, at + word.length, "t-q");
    } else if (/^%?r\w*\d$/.test(word) || word.startsWith("%")) set(at, at + word.length, "t-r");
  }
  return cls;
}

// The highlighted HTML of `text`; `err` ({line, column}, 1-based) marks the
// error's line and puts a caret box on its column.
function highlighted(text, err) {
  const lines = text.split("\n");
  return lines.map((line, i) => {
    const cls = lineClasses(line);
    const caretAt = err && err.line === i + 1 ? Math.max(0, (err.column || 1) - 1) : -1;
    let html = "";
    let run = "";
    let runCls = null;
    const flush = () => {
      if (run) html += runCls ? `<span class="${runCls}">${esc(run)}</span>` : esc(run);
      run = "";
    };
    const chars = Array.from(line);
    for (let k = 0; k < chars.length; k++) {
      if (k === caretAt) {
        flush();
        html += `<span class="err-caret">${esc(chars[k])}</span>`;
        continue;
      }
      if (cls[k] !== runCls) { flush(); runCls = cls[k]; }
      run += chars[k];
    }
    flush();
    if (caretAt >= chars.length) html += `<span class="err-caret"></span>`;
    return caretAt >= 0 ? `<span class="err-line">${html}</span>` : html;
  }).join("\n") + "\n ";
}

function paint(err) {
  $("highlight").innerHTML = highlighted($("editor").value, err);
  syncScroll();
}

function syncScroll() {
  $("highlight").scrollTop = $("editor").scrollTop;
  $("highlight").scrollLeft = $("editor").scrollLeft;
}

// ---------------------------------------------------------------- menus

function fill(select, values, labels) {
  select.innerHTML = values.map((v, i) => `<option value="${esc(v)}">${esc(labels ? labels[i] : v)}</option>`).join("");
}

function buildMenus(info) {
  const menu = $("menu");
  let html = '<optgroup label="Generated (ptx-litmus gen)">';
  for (const s of info.gen.shapes) html += `<option value="gen:${esc(s)}">${esc(s)} (gen)</option>`;
  html += "</optgroup>";
  const groups = {};
  for (const path of info.library) {
    const cut = path.lastIndexOf("/");
    const [folder, file] = [path.slice(0, cut), path.slice(cut + 1)];
    (groups[folder] = groups[folder] || []).push([path, file.replace(/\.litmus$/, "")]);
  }
  for (const folder of Object.keys(groups)) {
    html += `<optgroup label="Library: ${esc(folder)}">`;
    for (const [path, name] of groups[folder]) html += `<option value="lib:${esc(path)}">${esc(name)}</option>`;
    html += "</optgroup>";
  }
  menu.innerHTML = html;
  for (const key of ["sem", "fence", "scope", "placement", "proxy"]) fill($("gen-" + key), info.gen[key]);
  $("gen-sem").value = "relacq";
  $("gen-scope").value = "gpu";
  $("gen-placement").value = "same-gpu";
  fill($("model"), info.models);
  $("model").value = info.default_model;
  fill($("wi-sem"), [""].concat(SEMS), ["(none)"].concat(SEMS));
  fill($("wi-scope"), [""].concat(SCOPES), ["(none)"].concat(SCOPES));
  fill($("wi-placement"), [""].concat(info.gen.placement), ["(as written)"].concat(info.gen.placement));
}

// Load the test the menu names into the editor, then check it.
async function loadFromMenu() {
  const v = $("menu").value;
  const gen = v.startsWith("gen:");
  $("gen-options").hidden = !gen;
  let url;
  if (gen) {
    const q = new URLSearchParams({ shape: v.slice(4) });
    for (const key of ["sem", "fence", "scope", "placement", "proxy"]) q.set(key, $("gen-" + key).value);
    url = "/api/gen?" + q;
  } else {
    url = "/api/library?" + new URLSearchParams({ path: v.slice(4) });
  }
  const t = await getJSON(url);
  if (t.error) { showError(t.error.message, null); return; }
  setText(t.source);
  resetWhatIf();
  await check();
}

// Forget the last what-if edit (a new test, or the edit undone).
function resetWhatIf() {
  ui.undo = null;
  ui.whatIf = null;
  $("wi-undo").disabled = true;
  $("wi-result").textContent = "";
  $("wi-placement").value = "";
}

function setText(text) {
  $("editor").value = text;
  paint(null);
  parseSites();
}

// ---------------------------------------------------------------- checking

function schedule() {
  paint(null);
  parseSites();
  if (!$("live").checked) return;
  clearTimeout(ui.timer);
  ui.timer = setTimeout(check, 600);
}

async function check() {
  clearTimeout(ui.timer);
  const seq = ++ui.seq;
  document.body.dataset.status = "checking";
  $("verdict").textContent = "…";
  let r;
  try {
    r = await postJSON("/api/check", { source: $("editor").value, model: $("model").value });
  } catch (e) {
    r = { check: { error: { kind: "internal", message: "the server does not answer: " + e } } };
  }
  if (seq !== ui.seq) return;
  ui.last = r;
  render(r);
  document.body.dataset.status = "done";
  // How many answers the page has shown (the browser test waits on it).
  document.body.dataset.checks = String(+(document.body.dataset.checks || 0) + 1);
}

function showError(text, err) {
  const v = $("verdict");
  v.textContent = "error";
  v.className = "verdict err";
  $("error").hidden = false;
  $("error").textContent = text;
  paint(err);
}

function render(r) {
  const c = r.check;
  // After an error the last answer stays, dimmed, until the text checks again.
  $("right").classList.toggle("stale", !!c.error);
  if (c.error) {
    const e = c.error;
    $("kind").textContent = e.kind + " error";
    for (const id of ["condition", "flags", "time"]) $(id).textContent = "";
    showError(r.error_text || e.message, e.line ? { line: e.line, column: e.column } : null);
    return;
  }
  $("error").hidden = !r.error_text;
  $("error").textContent = r.error_text || "";
  paint(null);
  const v = $("verdict");
  v.textContent = c.verdict === null ? "no condition" : c.verdict;
  v.className = "verdict " + (c.verdict === "Ok" ? "ok" : c.verdict === "No" ? "no" : "");
  $("kind").textContent = c.kind + " outcome";
  $("condition").textContent = c.condition;
  const flags = Object.entries(c.flags).filter(([, on]) => on).map(([f]) => `<span class="flag">${esc(f)}</span>`);
  $("flags").innerHTML = flags.join(" ");
  $("time").textContent = `${c.time_ms.toFixed(1)} ms`;
  renderStates(c, r.marked || []);
  renderExecutions(c);
  renderExplain(r.explain);
  renderWhatIf(c.verdict);
}

// A JSON state key as the text listings write it: `P1:r0` is `1:r0` (D252).
function shownName(k) {
  return k.replace(/^P(\d+):/, "$1:");
}

function stateText(s) {
  return Object.entries(s).map(([k, v]) => `${shownName(k)}=${v}`).join("; ");
}

function renderStates(c, marked) {
  const keys = c.states.length ? Object.keys(c.states[0]) : [];
  let html = "<tr><th></th>" + keys.map((k) => `<th>${esc(shownName(k))}</th>`).join("") + "</tr>";
  c.states.forEach((s, i) => {
    html += `<tr class="${marked[i] ? "marked" : ""}"><td>${marked[i] ? "★" : ""}</td>`;
    html += keys.map((k) => `<td class="num">${esc(String(s[k]))}</td>`).join("") + "</tr>";
  });
  $("states").innerHTML = html;
  if (!c.states_complete) $("states").innerHTML += "<tr><td colspan='99'>… more states not listed</td></tr>";
}

function renderExecutions(c) {
  const execs = c.executions || [];
  const axiomOf = {};
  for (const e of c.explanation || []) axiomOf[e.execution] = e;
  const item = (i, label) => `<li class="pick" data-exec="${i}">${label}</li>`;
  let forb = "";
  let wit = "";
  execs.forEach((x, i) => {
    if (x.kind === "forbidden") {
      const a = axiomOf[i];
      forb += item(i, `${esc(stateText(x.state))} — candidate ${x.candidate}: violates <b class="axiom">${esc(a ? a.axiom : "?")}</b>`);
    } else {
      wit += item(i, `${esc(stateText(x.state))} — allowed, witness execution`);
    }
  });
  $("forbidden").innerHTML = forb || "<li>none</li>";
  $("witnesses").innerHTML = wit || "<li>none</li>";
  for (const li of document.querySelectorAll("li.pick")) li.onclick = () => showGraph(+li.dataset.exec, true);
  const first = execs.findIndex((x) => x.kind === "forbidden");
  if (execs.length) showGraph(first >= 0 ? first : 0, false);
  else {
    $("graph-title").textContent = "No execution to show";
    $("graph-text").textContent = "";
    $("graph").innerHTML = "";
  }
}

// Show execution `i` of the last check in the graph tab.
function showGraph(i, focus) {
  const c = ui.last.check;
  const x = c.executions[i];
  const a = (c.explanation || []).find((e) => e.execution === i);
  if (x.kind === "forbidden" && a) {
    $("graph-title").innerHTML = `Forbidden: ${esc(stateText(x.state))} violates <span class="axiom">${esc(a.axiom)}</span> (${esc(a.section)})`;
    $("graph-text").textContent = a.text + (a.notes.length ? " " + a.notes.join(" ") : "");
  } else {
    $("graph-title").textContent = `Witness: an allowed execution ending in ${stateText(x.state)}`;
    $("graph-text").textContent = "";
  }
  $("graph").innerHTML = ui.last.svg[i];
  for (const li of document.querySelectorAll("li.pick")) li.classList.toggle("active", +li.dataset.exec === i);
  if (focus) showTab("graph");
}

function renderExplain(x) {
  if (!x || x.error) {
    $("pairs").innerHTML = x ? `<tr><td>${esc(x.error)}</td></tr>` : "";
    $("sync").innerHTML = "";
    return;
  }
  const ops = {};
  for (const o of x.operations) ops[o.event] = `P${o.thread}: ${o.text}`;
  const name = (e) => `<span class="pair"><b>${esc(e)}</b> <code>${esc(ops[e] || "")}</code></span>`;
  let html = "<tr><th>pair</th><th>morally strong</th><th>why</th></tr>";
  for (const p of x.morally_strong) {
    html += `<tr><td>${name(p.a)}<br>${name(p.b)}</td><td class="${p.morally_strong ? "yes" : "not"}">${p.morally_strong ? "yes" : "no"}</td><td>${esc(p.reason)}</td></tr>`;
  }
  $("pairs").innerHTML = html;
  html = "<tr><th>from</th><th>to</th><th>in some allowed execution</th><th>rules</th></tr>";
  for (const s of x.synchronization) {
    html += `<tr><td>${name(s.from)}</td><td>${name(s.to)}</td><td class="${s.in_some_allowed_execution ? "yes" : "not"}">${s.in_some_allowed_execution ? "yes" : "no"}</td><td>${esc(s.rules)}</td></tr>`;
  }
  $("sync").innerHTML = html;
}

// ---------------------------------------------------------------- what if

// The instructions of the thread table: {start, end, thread, text} (offsets into the editor's text).
function parseSites() {
  const text = $("editor").value;
  const lines = text.split("\n");
  const sites = [];
  let offset = 0;
  let inTable = false;
  ui.header = null;
  for (const line of lines) {
    const trimmed = line.trim();
    if (/^P\d+(@[^|;]*)?\s*(\|\s*P\d+(@[^|;]*)?\s*)*;?$/.test(trimmed)) {
      inTable = true;
      ui.header = { start: offset, end: offset + line.length, text: line };
    } else if (inTable && /^(~?exists|forall|locations|filter)\b/.test(trimmed)) {
      inTable = false;
    } else if (inTable) {
      let col = 0;
      line.replace(/;\s*$/, "").split("|").forEach((cell, thread) => {
        const lead = cell.length - cell.trimStart().length;
        const body = cell.trim().replace(/;$/, "").trim();
        if (body && /^[a-z]/.test(body)) {
          sites.push({ start: offset + col + lead, end: offset + col + lead + body.length, thread, text: body });
        }
        col += cell.length + 1;
      });
    }
    offset += line.length + 1;
  }
  const prev = $("wi-instr").value;
  ui.sites = sites;
  fill($("wi-instr"), sites.map((_, i) => String(i)), sites.map((s) => `P${s.thread}: ${s.text}`));
  if (prev && +prev < sites.length) $("wi-instr").value = prev;
  showSite();
}

// The selects show the chosen instruction's semantics and scope.
function showSite() {
  const s = ui.sites && ui.sites[+$("wi-instr").value];
  const quals = s ? s.text.split(/\s/)[0].split(".").slice(1) : [];
  $("wi-sem").value = quals.find((q) => SEMS.includes(q)) || "";
  $("wi-scope").value = quals.find((q) => SCOPES.includes(q)) || "";
}

// The instruction `text` with semantics `sem` and scope `scope` ("" removes them).
function rewrite(text, sem, scope) {
  const [mnemonic, ...rest] = text.split(/(\s.*)/s);
  const parts = mnemonic.split(".");
  let quals = parts.slice(1).filter((q) => !SEMS.includes(q) && !SCOPES.includes(q));
  const memory = ["ld", "st"].includes(parts[0]);
  if (memory && scope && (!sem || sem === "weak" || sem === "volatile")) sem = "relaxed";
  if (memory && (sem === "weak" || sem === "volatile")) scope = "";
  const front = [sem, scope].filter(Boolean);
  quals = front.concat(quals);
  return [parts[0]].concat(quals).join(".") + rest.join("");
}

function whatIfEdit(newText) {
  ui.undo = $("editor").value;
  ui.whatIf = ui.last && ui.last.check && !ui.last.check.error ? ui.last.check.verdict : null;
  $("wi-undo").disabled = false;
  setText(newText);
  check();
}

function whatIfInstruction() {
  const s = ui.sites[+$("wi-instr").value];
  if (!s) return;
  const text = $("editor").value;
  const changed = rewrite(s.text, $("wi-sem").value, $("wi-scope").value);
  whatIfEdit(text.slice(0, s.start) + changed + text.slice(s.end));
}

// The thread header with every thread placed as `gen --placement` places them.
function whatIfPlacement() {
  const p = $("wi-placement").value;
  if (!p || !ui.header) return;
  const where = (i) => ({
    "same-cta": "cta 0,gpu 0",
    "same-cluster": `cta ${i},cluster 0,gpu 0`,
    "same-gpu": `cta ${i},gpu 0`,
    "diff-gpu": `cta 0,gpu ${i}`,
  })[p];
  const header = ui.header.text.replace(/P(\d+)(@[^|;]*)?/g, (_, n) => `P${n}@${where(+n)} `);
  const text = $("editor").value;
  whatIfEdit(text.slice(0, ui.header.start) + header + text.slice(ui.header.end));
}

function renderWhatIf(verdict) {
  if (ui.whatIf === null || ui.whatIf === undefined) return;
  const changed = ui.whatIf !== verdict;
  $("wi-result").innerHTML = `verdict ${esc(String(ui.whatIf))} → <b>${esc(String(verdict))}</b>` +
    (changed ? " <b>(the verdict changed)</b>" : " (unchanged)");
}

// ---------------------------------------------------------------- advise

async function advise() {
  $("advise").textContent = "searching for repairs…";
  const r = await postJSON("/api/advise", { source: $("editor").value, model: $("model").value });
  if (r.error_text) { $("advise").innerHTML = `<pre>${esc(r.error_text)}</pre>`; return; }
  const a = r.advise;
  const answers = a.repairs.concat(a.weakenings, a.maximal_weakening ? [a.maximal_weakening] : []);
  const block = (x, i) => {
    const changes = x.changes.map((ch) =>
      `<li>P${ch.thread}, line ${ch.line}: ${ch.action} <code>${esc(ch.before)}</code> → <code>${esc(ch.after)}</code></li>`).join("");
    return `<div class="repair"><ul>${changes}</ul>cost ${x.cost}; then forbidden by <b>${esc(x.forbidden_by)}</b>
      <button data-apply="${i}">Apply</button></div>`;
  };
  let html;
  if (a.reachable) {
    html = `<p>The outcome can happen. ${a.repairs.length ? `Cheapest repairs (cost ${a.min_cost}):` : "No repair in the menu forbids it."}</p>`;
    html += a.repairs.map((x, i) => block(x, i)).join("");
  } else {
    html = "<p>The outcome is forbidden already. What can be weakened while it stays forbidden:</p>";
    html += answers.slice(a.repairs.length).map((x, k) => block(x, a.repairs.length + k)).join("") || "<p>nothing</p>";
  }
  $("advise").innerHTML = html;
  for (const b of document.querySelectorAll("button[data-apply]")) {
    b.onclick = () => whatIfEdit(r.sources[+b.dataset.apply]);
  }
}

// ---------------------------------------------------------------- page

function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const t of document.querySelectorAll(".tab")) t.hidden = t.id !== "tab-" + name;
}

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  try { localStorage.setItem("ptx-litmus-theme", theme); } catch (e) { /* private mode */ }
}

async function start() {
  let theme = null;
  try { theme = localStorage.getItem("ptx-litmus-theme"); } catch (e) { /* private mode */ }
  setTheme(theme || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  $("theme").onclick = () => setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
  const editor = $("editor");
  editor.addEventListener("input", schedule);
  editor.addEventListener("scroll", syncScroll);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); check(); }
  });
  $("check").onclick = check;
  $("menu").onchange = loadFromMenu;
  for (const key of ["sem", "fence", "scope", "placement", "proxy"]) $("gen-" + key).onchange = loadFromMenu;
  $("model").onchange = check;
  $("wi-instr").onchange = showSite;
  $("wi-sem").onchange = whatIfInstruction;
  $("wi-scope").onchange = whatIfInstruction;
  $("wi-placement").onchange = whatIfPlacement;
  $("wi-undo").onclick = () => {
    if (ui.undo === null) return;
    setText(ui.undo);
    resetWhatIf();
    check();
  };
  $("advise-run").onclick = advise;
  for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => showTab(b.dataset.tab);
  ui.info = await getJSON("/api/info");
  buildMenus(ui.info);
  $("menu").value = "gen:MP";
  await loadFromMenu();
}

start();
