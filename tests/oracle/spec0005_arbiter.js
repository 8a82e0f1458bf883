// Test oracle: SPEC-0005's own arbiter (seed 000, "Arbiter Integration": loadAllMemories,
// findRelevantMemories, matchWhenToUse; "Integration with Machine": formatMemoriesForPrompt),
// transcribed from its TypeScript to JavaScript and run on V8.  extractFrontmatter, which the
// spec calls but never defines, is the one the SPEC-0007 oracle uses (Deno std extract + js-yaml).
// Added outside its logic: the store root is a parameter and directory order can be replaced by
// name order.  Input (stdin): [{root, task, agentName, order?}, …]; output: one result each.
"use strict";
const fs = require("fs");
const path = require("path");
const YAML = require("js-yaml");

const EXTRACT_RE = /^(\ufeff?---$([\s\S]+?)^(?:---|\.\.\.)\s*$(?:\n)?)/im;
function extractFrontmatter(text) {
  const match = EXTRACT_RE.exec(text);
  if (!match || match.index !== 0) throw new TypeError("Unexpected end of input");
  const frontMatter = match.at(-1).replace(/^\s+|\s+$/g, "") || "";
  const attrs = YAML.load(frontMatter);
  const body = text.replace(match[0], "");
  return { frontMatter, body, attrs };
}

let ROOT = ".";
let ORDER = "name";
function readTextFile(p) { return new TextDecoder().decode(fs.readFileSync(path.join(ROOT, p))); }
// Deno.readDir lists in readdir(3) order; node's readdirSync sorts (libuv's scandir), opendir does not
function readDir(dir) {
  const entries = [];
  const handle = fs.opendirSync(path.join(ROOT, dir));
  for (let e = handle.readSync(); e !== null; e = handle.readSync()) entries.push(e);
  handle.closeSync();
  if (ORDER === "name") entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries.map((e) => ({ name: e.name, isFile: e.isFile() }));
}

function loadAllMemories() {
  const memories = [];
  try {
    for (const entry of readDir(".rawko/memories")) {
      if (!entry.isFile || !entry.name.endsWith(".md")) continue;
      const path = `.rawko/memories/${entry.name}`;
      const content = readTextFile(path);
      const { attrs, body } = extractFrontmatter(content);
      memories.push({ path, filename: entry.name, frontmatter: attrs, content: body });
    }
  } catch (error) {
    // memories directory doesn't exist yet, that's fine
  }
  return memories;
}

function findRelevantMemories(memories, context) {
  const relevant = [];
  for (const memory of memories) {
    const { whenToUse } = memory.frontmatter;
    const matched = matchWhenToUse(whenToUse, context);
    if (matched) relevant.push(memory);
  }
  return relevant.sort((a, b) => {
    const importanceOrder = { critical: 3, high: 2, medium: 1, low: 0 };
    return importanceOrder[b.frontmatter.importance] - importanceOrder[a.frontmatter.importance];
  });
}

function matchWhenToUse(whenToUse, context) {
  const patterns = Array.isArray(whenToUse) ? whenToUse : [whenToUse];
  const text = `${context.task} ${context.agentName}`.toLowerCase();
  for (const pattern of patterns) {
    if (pattern.includes("|") || pattern.includes("*")) {
      try {
        const regex = new RegExp(pattern, "i");
        if (regex.test(text)) return true;
      } catch { /* Invalid regex, skip */ }
    } else {
      if (text.includes(pattern.toLowerCase())) return true;
    }
  }
  return false;
}

function formatMemoriesForPrompt(memories) {
  if (memories.length === 0) return "";
  let context = "## Background Knowledge from Previous Runs\n\n";
  for (const memory of memories) {
    context += `### ${memory.frontmatter.title}\n`;
    context += `*Discovered by: ${memory.frontmatter.discoveredBy}*\n\n`;
    context += memory.content;
    context += "\n\n";
  }
  return context;
}

function run(request) {
  ROOT = request.root;
  ORDER = request.order || "name";
  let stage = "load";
  try {
    const all = loadAllMemories();
    stage = "rank";
    const relevant = findRelevantMemories(all, { task: request.task, agentName: request.agentName });
    stage = "format";
    const prompt = formatMemoriesForPrompt(relevant);
    return { injected: relevant.map((m) => ({ path: m.path })), loaded: all.map((m) => m.path), prompt, error: null };
  } catch (e) {
    return { error: { stage, message: `${e.name}: ${e.message}` } };
  }
}

const requests = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(requests.map(run)));
