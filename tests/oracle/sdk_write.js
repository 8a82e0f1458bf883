// rawko-sdk's writer (rawko/src/memory/writer.ts: formatMemoryFile and appendMemory's separator),
// run with the npm `yaml` it pins, so generated test stores are written exactly as rawko-sdk writes.
// Input (stdin): [{entries: [{frontmatter, content}, …]}, …]; output: each file's text.
"use strict";
const fs = require("fs");
const { stringify: stringifyYaml } = require("yaml");

function formatMemoryFile(memory) {
  const frontmatter = stringifyYaml(memory.frontmatter);
  return `---\n${frontmatter}---\n\n${memory.content}`;
}

const files = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(files.map((file) => {
  let content = null;
  for (const entry of file.entries) {
    const formatted = formatMemoryFile(entry);
    content = content === null ? formatted : content + "\n\n---\n\n" + formatted;
  }
  return content;
})));
