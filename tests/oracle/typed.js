// JavaScript values as JSON with their types kept (dates, byte arrays, Sets, Maps, non-finite numbers,
// undefined), so the Python side can compare them: shared by the YAML probes.
"use strict";
function typed(x) {
  if (x instanceof Date) return { $date: isNaN(x.getTime()) ? null : x.getTime() };
  if (x instanceof Uint8Array) return { $bytes: Array.from(x) };
  if (x instanceof Set) return { $set: [...x].map(typed) };
  if (x instanceof Map) return { $map: [...x].map(([k, v]) => [typed(k), typed(v)]) };
  if (typeof x === "number" && !isFinite(x)) return { $number: String(x) };
  if (Array.isArray(x)) return x.map(typed);
  if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, typed(v)]));
  return x === undefined ? { $undefined: true } : x;
}
module.exports = { typed };
