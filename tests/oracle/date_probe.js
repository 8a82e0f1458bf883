// new Date(s).getTime() for each string in the JSON list on stdin; NaN is written as null.
// The zone is the process's (TZ), as it is for the arbiters.
"use strict";
const fs = require("fs");
const strings = JSON.parse(fs.readFileSync(0, "utf8"));
const out = strings.map((s) => {
  const t = new Date(s).getTime();
  return Number.isNaN(t) ? null : t;
});
process.stdout.write(JSON.stringify(out));
