// Test oracle for V8's own limits: what `new RegExp(source, flags)` and then `.exec(text)` do, and where V8 throws.
// V8 reads the pattern when it is constructed (syntax errors, "Too many captures") and compiles it when it first
// runs it ("Stack overflow", "Regular expression too large"): the stage says which. A match V8 is still
// backtracking on after two seconds of CPU time is interrupted (vm's timeout reaches into the regexp engine) and
// said: slow (and starved if a busy machine never gave it those two seconds).
// Input (stdin): [[source, flags, text], …]; output: [{error, stage: "construct" | "exec"} | {span: [start, end] | null} | {slow: true, starved}, …]
// in UTF-16 units.
"use strict";
const fs = require("fs");
const vm = require("vm");
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const timeout = Number(process.argv[2] || 2000);  // ms a match may run before it is said to be slow
const context = vm.createContext({});
process.stdout.write(JSON.stringify(cases.map(([source, flags, text]) => {
  let re;
  try { re = new RegExp(source, flags); } catch (e) { return { error: e.message.slice(-60), stage: "construct" }; }
  context.re = re;
  context.text = text;
  let m;
  // A match is slow when it ran past `timeout` of CPU time. vm's timeout counts wall time, so an interrupted match
  // that had less than nine tenths of it on a CPU (a busy machine) runs again with twice the wall time, up to four
  // times `timeout`; past that it is slow and starved.
  for (let wall = timeout; ; wall *= 2) {
    const cpu = process.cpuUsage();
    try { m = vm.runInContext("re.exec(text)", context, { timeout: wall }); break; } catch (e) {
      if (!/timed out/.test(e.message)) return { error: e.message.slice(-60), stage: "exec" };
      const used = process.cpuUsage(cpu);
      const starved = (used.user + used.system) / 1000 < 0.9 * timeout;
      if (!starved || wall >= 4 * timeout) return { slow: true, starved };
    }
  }
  return { span: m ? [m.index, m.index + m[0].length] : null };
})));
