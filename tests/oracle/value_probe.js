// Test oracle for rawko_tui.core.jsvalue: what V8 says of Number(x), String(x) and slice(0, x).
// Input (stdin): [[op, value, …], …] with op "number" (a string: Number(s), written as String() gives it,
// "-0" for negative zero), "string-bits" (a double's 16 hex digits, big-endian: String(x)),
// "iso" (a time value in ms: new Date(ms).toISOString(), null when invalid), "slice" (a JSON value, {"undefined": true} for undefined, and a length: [0, …].slice(0, value).length).
// Output: one string or number per case.
"use strict";
const fs = require("fs");
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const written = (n) => (Object.is(n, -0) ? "-0" : String(n));
const value = (v) => (v !== null && typeof v === "object" && !Array.isArray(v) && v.undefined === true ? undefined : v);
process.stdout.write(JSON.stringify(cases.map(([op, v, length]) => {
  if (op === "number") return written(Number(v));
  if (op === "string-bits") {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, BigInt("0x" + v));
    return String(view.getFloat64(0));
  }
  if (op === "iso") {  // a time value (ms): toISOString(), null for an invalid date
    const date = new Date(v);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  if (op === "slice") return Array.from({ length }, (_, i) => i).slice(0, value(v)).length;
  throw new Error("unknown op " + op);
})));
