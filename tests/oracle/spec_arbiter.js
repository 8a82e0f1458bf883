// Test oracle: SPEC-0007's arbiter (004_…), transcribed from its TypeScript to
// JavaScript and run on V8, as a user's arbiter runs it.  Only three things are
// added, all outside the spec's logic: Date.now() is pinned to the request's
// "now", the store root is a parameter, the directory order may be replaced by name order, and scoreMemoryRelevance records each
// `score +=` in `parts` so the components can be compared.
// Input (stdin): [{root, task, agentName, now, options?, order?}, …]; output: one result each.
"use strict";
const fs = require("fs");
const path = require("path");
const YAML = require("js-yaml");

// Deno std's extract (front_matter/yaml.ts) with @std/yaml's parse (a js-yaml port).
const EXTRACT_RE = /^(\ufeff?---$([\s\S]+?)^(?:---|\.\.\.)\s*$(?:\n)?)/im;
function extractFrontmatter(text) {
  const match = EXTRACT_RE.exec(text);
  if (!match || match.index !== 0) throw new TypeError("Unexpected end of input");
  const frontMatter = match.at(-1).replace(/^\s+|\s+$/g, "") || "";
  const attrs = YAML.load(frontMatter);
  const body = text.replace(match[0], "");
  return { frontMatter, body, attrs };
}

// Deno.readTextFile: UTF-8, BOM dropped, bad bytes replaced.
function readTextFile(p) { return new TextDecoder().decode(fs.readFileSync(p)); }

let ROOT = ".";
let ORDER = "name";  // "directory": the order readdir gives, as Deno.readDir does
function loadMemoryFrontmatter() {
  const memories = [];
  const dir = path.join(ROOT, ".rawko/memories");
  let entries = [];
  try {
    // Deno.readDir lists in readdir(3) order; node's readdirSync sorts (libuv's scandir), opendir does not
    const handle = fs.opendirSync(dir);
    for (let e = handle.readSync(); e !== null; e = handle.readSync()) entries.push(e);
    handle.closeSync();
  } catch (error) { if (error.code === "ENOENT") return []; throw error; }
  if (ORDER === "name") entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".md")) continue;
    const p = `.rawko/memories/${entry.name}`;
    const content = readTextFile(path.join(ROOT, p));
    const { attrs } = extractFrontmatter(content);
    memories.push({ path: p, filename: entry.name, frontmatter: attrs });
  }
  return memories;
}

let LAST_PARTS = null;
function findRelevantMemories(memories, context, options = {}) {
  const maxMemories = options.maxMemories ?? 5;
  const minImportance = options.minImportance ?? "low";
  const scored = memories
    .map((memory) => ({
      memory,
      score: scoreMemoryRelevance(memory, context),
      parts: LAST_PARTS,
      matches: matchWhenToUse(memory.frontmatter.whenToUse, context),
    }))
    .filter((item) => item.matches)
    .filter((item) => meetsImportanceThreshold(item.memory, minImportance))
    .sort((a, b) => b.score - a.score);
  findRelevantMemories.all = scored;
  return scored.slice(0, maxMemories);
}

function scoreMemoryRelevance(memory, context) {
  const parts = { importance: 0, recency: 0, keyword: 0, agentTags: 0, sameAgent: 0 };
  let score = 0;
  const importanceMap = { low: 5, medium: 15, high: 25, critical: 30 };
  score += importanceMap[memory.frontmatter.importance] || 0;
  parts.importance = importanceMap[memory.frontmatter.importance] || 0;
  const ageHours = (Date.now() - new Date(memory.frontmatter.discoveredAt).getTime()) / 3600000;
  if (ageHours < 24) { score += 10; parts.recency = 10; }
  else if (ageHours < 72) { score += 5; parts.recency = 5; }
  const taskWords = context.task.toLowerCase().split(/\s+/);
  const memoryTitle = memory.frontmatter.title.toLowerCase();
  const matchedWords = taskWords.filter((w) => memoryTitle.includes(w));
  score += Math.min(20, matchedWords.length * 5);
  parts.keyword = Math.min(20, matchedWords.length * 5);
  if (memory.frontmatter.tags) {
    const agentTags = getAgentTags(context.agentName);
    const commonTags = memory.frontmatter.tags.filter((t) => agentTags.includes(t));
    score += Math.min(15, commonTags.length * 5);
    parts.agentTags = Math.min(15, commonTags.length * 5);
  }
  if (memory.frontmatter.discoveredBy === context.agentName) { score += 10; parts.sameAgent = 10; }
  LAST_PARTS = parts;
  return Math.min(100, score);
}

function matchWhenToUse(whenToUse, context) {
  const patterns = Array.isArray(whenToUse) ? whenToUse : [whenToUse];
  const searchText = `${context.task} ${context.agentName}`.toLowerCase();
  for (const pattern of patterns) {
    if (matchPattern(pattern, searchText)) return true;
  }
  return false;
}

function matchPattern(pattern, text) {
  const normalized = pattern.toLowerCase().trim();
  if (normalized.includes("|")) {
    const alternatives = normalized.split("|").map((s) => s.trim());
    return alternatives.some((alt) => text.includes(alt));
  }
  if (normalized.includes("*") || normalized.includes("?")) {
    try {
      const regex = new RegExp(normalized.replace(/\*/g, ".*").replace(/\?/g, "."), "i");
      return regex.test(text);
    } catch { /* Invalid regex, fall through */ }
  }
  if (normalized.includes(".") && normalized.includes("{")) {
    try {
      const regex = new RegExp(normalized, "i");
      return regex.test(text);
    } catch { /* Invalid regex, fall through */ }
  }
  return text.includes(normalized);
}

function meetsImportanceThreshold(memory, minImportance) {
  const order = { low: 0, medium: 1, high: 2, critical: 3 };
  return order[memory.frontmatter.importance] >= order[minImportance];
}

function getAgentTags(agentName) {
  const tagMap = {
    planner: ["planning", "structure", "analysis"],
    developer: ["implementation", "code", "patterns"],
    tester: ["testing", "validation", "quality"],
    reviewer: ["review", "quality", "standards"],
  };
  return tagMap[agentName] || [];
}

function loadMemoryContent(memories) {
  const full = [];
  for (const memory of memories) {
    const content = readTextFile(path.join(ROOT, memory.path));
    const { body } = extractFrontmatter(content);
    full.push({ ...memory, content: body });
  }
  return full;
}

function formatMemoriesForPrompt(memories) {
  if (memories.length === 0) return "";
  let formatted = "## Background Knowledge from Previous Runs\n\n";
  formatted += "The following information was learned from prior runs and may be relevant:\n\n";
  for (const memory of memories) {
    formatted += `### ${memory.frontmatter.title}\n`;
    formatted += `*Importance: ${memory.frontmatter.importance.toUpperCase()}*\n`;
    formatted += `*Discovered by: ${memory.frontmatter.discoveredBy}*\n\n`;
    let contentPreview = memory.content;
    const nextHeading = contentPreview.indexOf("\n# ");
    if (nextHeading > 0 && nextHeading < 500) {
      contentPreview = contentPreview.substring(0, nextHeading);
    } else if (contentPreview.length > 500) {
      contentPreview = contentPreview.substring(0, 500) + "...";
    }
    formatted += contentPreview + "\n\n";
  }
  return formatted;
}

function run(request) {
  ROOT = request.root;
  ORDER = request.order || "name";
  Date.now = () => request.now;
  let stage = "load";
  try {
    const all = loadMemoryFrontmatter();
    stage = "rank";
    const top = findRelevantMemories(all, { task: request.task, agentName: request.agentName }, request.options || {});
    stage = "format";
    const prompt = formatMemoriesForPrompt(loadMemoryContent(top.map((t) => t.memory)));
    return {
      injected: top.map((t) => ({ path: t.memory.path, score: t.score, components: t.parts })),
      considered: findRelevantMemories.all.map((t) => ({ path: t.memory.path, score: t.score })),
      prompt,
      error: null,
    };
  } catch (e) {
    return { error: { stage, message: `${e.name}: ${e.message}` } };
  }
}

const requests = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(requests.map(run)));
