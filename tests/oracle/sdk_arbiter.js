// Test oracle: rawko-sdk's memory injection (rawkode/rawkode, rawko/src/memory/loader.ts and
// injection.ts, and formatMemoriesForPlan of rawko/src/arbiter/prompts.ts, commit e2b158c5),
// transcribed from its TypeScript to JavaScript and run on node with the npm `yaml` it pins (2.8.2).
// Added outside its logic: Date.now() is pinned to the request's "now", the store root is a
// parameter, directory order can be replaced by name order, warnings are recorded instead of
// printed, and scoreMemoryRelevance records each `score +=` in `parts`.
// Input (stdin): [{root, task, agentName, now, options?, order?}, …]; output: one result each.
"use strict";
const fs = require("fs");
const path = require("path");
const { parse: parseYaml } = require("yaml");

let ROOT = ".";
let ORDER = "name";
let WARNINGS = [];
const MEMORIES_DIR = ".rawko/memories";

// Deno.readTextFile keeps a leading BOM
function readTextFile(p) { return new TextDecoder("utf-8", { ignoreBOM: true }).decode(fs.readFileSync(path.join(ROOT, p))); }

// Deno.readDir lists in readdir(3) order; node's readdirSync sorts (libuv's scandir), opendir does not
function readDir(dir) {
  const entries = [];
  const handle = fs.opendirSync(path.join(ROOT, dir));
  for (let e = handle.readSync(); e !== null; e = handle.readSync()) entries.push(e);
  handle.closeSync();
  if (ORDER === "name") entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries.map((e) => ({ name: e.name, isFile: e.isFile() }));
}

function extractFrontmatter(content) {
  const frontmatterRegex = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/;
  const match = content.match(frontmatterRegex);
  if (!match) return { attrs: {}, body: content };
  try {
    const attrs = parseYaml(match[1]);
    return { attrs, body: match[2].trim() };
  } catch {
    return { attrs: {}, body: content };
  }
}

function loadMemoryFrontmatter() {
  const memories = [];
  let entries;
  try { entries = readDir(MEMORIES_DIR); }
  catch (error) { if (error.code === "ENOENT") return []; throw error; }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".md")) continue;
    const p = `${MEMORIES_DIR}/${entry.name}`;
    try {
      const content = readTextFile(p);
      const { attrs } = extractFrontmatter(content);
      if (!isValidFrontmatter(attrs)) { WARNINGS.push(p); continue; }
      memories.push({ path: p, filename: entry.name, frontmatter: attrs });
    } catch (error) {
      WARNINGS.push(p);
    }
  }
  return memories;
}

function loadMemoryContent(metadataList) {
  const files = [];
  for (const metadata of metadataList) {
    const content = readTextFile(metadata.path);
    const { body } = extractFrontmatter(content);
    files.push({ ...metadata, content: body });
  }
  return files;
}

function isValidFrontmatter(attrs) {
  return (
    typeof attrs.title === "string" &&
    (typeof attrs.whenToUse === "string" || Array.isArray(attrs.whenToUse)) &&
    Array.isArray(attrs.tags) &&
    typeof attrs.importance === "string" &&
    ["low", "medium", "high", "critical"].includes(attrs.importance) &&
    typeof attrs.discoveredAt === "string" &&
    typeof attrs.discoveredBy === "string"
  );
}

let LAST_PARTS = null;
function scoreMemoryRelevance(memory, context) {
  const parts = { importance: 0, recency: 0, keyword: 0, agentTags: 0, sameAgent: 0 };
  let score = 0;
  const frontmatter = memory.frontmatter;
  const importanceMap = { low: 5, medium: 15, high: 25, critical: 30 };
  score += importanceMap[frontmatter.importance] || 0;
  parts.importance = importanceMap[frontmatter.importance] || 0;
  const ageHours = (Date.now() - new Date(frontmatter.discoveredAt).getTime()) / 3600000;
  if (ageHours < 24) { score += 10; parts.recency = 10; }
  else if (ageHours < 72) { score += 5; parts.recency = 5; }
  const taskWords = context.task.toLowerCase().split(/\s+/);
  const memoryTitle = frontmatter.title.toLowerCase();
  const matchedWords = taskWords.filter((w) => w.length > 3 && memoryTitle.includes(w));
  score += Math.min(20, matchedWords.length * 5);
  parts.keyword = Math.min(20, matchedWords.length * 5);
  if (frontmatter.tags) {
    const agentTags = getAgentTags(context.agentName);
    const commonTags = frontmatter.tags.filter((t) => agentTags.includes(t.toLowerCase()));
    score += Math.min(15, commonTags.length * 5);
    parts.agentTags = Math.min(15, commonTags.length * 5);
  }
  if (frontmatter.discoveredBy === context.agentName) { score += 10; parts.sameAgent = 10; }
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
    planner: ["planning", "structure", "analysis", "architecture"],
    developer: ["implementation", "code", "patterns", "development"],
    tester: ["testing", "validation", "quality", "tests"],
    reviewer: ["review", "quality", "standards", "code-review"],
  };
  return tagMap[agentName] || [];
}

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

function formatMemoriesForPlan(memories) {
  if (memories.length === 0) return "";
  const lines = ["## Relevant Memories", ""];
  for (const memory of memories) {
    const { frontmatter, filename } = memory;
    lines.push(`### ${frontmatter.title}`);
    lines.push(`- **File:** ${filename}`);
    lines.push(`- **Importance:** ${frontmatter.importance}`);
    lines.push(`- **Tags:** ${frontmatter.tags.join(", ")}`);
    const whenToUse = Array.isArray(frontmatter.whenToUse) ? frontmatter.whenToUse.join("; ") : frontmatter.whenToUse;
    lines.push(`- **When to use:** ${whenToUse}`);
    lines.push("");
  }
  return lines.join("\n");
}

function run(request) {
  ROOT = request.root;
  ORDER = request.order || "name";
  WARNINGS = [];
  Date.now = () => request.now;
  let stage = "load";
  try {
    const all = loadMemoryFrontmatter();
    const planPrompt = formatMemoriesForPlan(all);
    stage = "rank";
    const options = request.options || { maxMemories: 5, minImportance: "low" };
    const top = findRelevantMemories(all, { task: request.task, agentName: request.agentName }, options);
    stage = "format";
    const prompt = formatMemoriesForPrompt(loadMemoryContent(top.map((t) => t.memory)));
    return {
      injected: top.map((t) => ({ path: t.memory.path, score: t.score, components: t.parts })),
      considered: findRelevantMemories.all.map((t) => ({ path: t.memory.path, score: t.score })),
      loaded: all.map((m) => m.path),
      skipped: WARNINGS,
      prompt,
      planPrompt,
      error: null,
    };
  } catch (e) {
    return { error: { stage, message: `${e.name}: ${e.message}` }, skipped: WARNINGS };
  }
}

const requests = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(requests.map(run)));
