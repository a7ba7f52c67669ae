// Our wire messages in the browser, generated from the library's own message types: the server
// serves /schema.json (scenarios.classroom.live.wire_schema, read off the msgspec structs of
// mpc_rr), and this file builds and checks messages from it -- there is no second definition.
// A message is a msgpack map: the tag ("type": class name) first, then every field in order.
"use strict";
(function (root) {
  let schema = null;

  async function load(url) {
    const r = await fetch(url || "/schema.json");
    schema = await r.json();
    return schema;
  }

  function spec(name) {
    const s = schema && schema.types[name];
    if (!s) throw new TypeError("unknown message type " + JSON.stringify(name));
    return s;
  }

  function fromDefault(d) {  // {"$bytes": hex} (JSON has no bytes); [] a fresh list
    if (d && typeof d === "object" && "$bytes" in d) return Uint8Array.from(d.$bytes.match(/../g) || [], (h) => parseInt(h, 16));
    return Array.isArray(d) ? [] : d;
  }

  // a message of type `name`: every field of the schema, in its order, defaults filled in
  function make(name, fields) {
    const s = spec(name);
    const m = { [schema.tag]: name };
    for (const [f] of s.fields) {
      if (f in fields) m[f] = fields[f];
      else if (f in s.defaults) m[f] = fromDefault(s.defaults[f]);
      else throw new TypeError(name + ": field " + f + " is required");
    }
    for (const f of Object.keys(fields)) if (!s.fields.some(([g]) => g === f)) throw new TypeError(name + ": no field " + f);
    return m;
  }

  function checkKind(kind, v, where) {
    if (kind.endsWith("?")) { if (v === null) return; kind = kind.slice(0, -1); }  // X | None
    if (kind.startsWith("list<")) {  // list[X]: the signatures
      if (!Array.isArray(v)) throw new TypeError(where + ": not a " + kind);
      v.forEach((x, i) => checkKind(kind.slice(5, -1), x, where + "[" + i + "]"));
      return;
    }
    const ok = {
      int: () => Number.isInteger(v) || typeof v === "bigint",
      str: () => typeof v === "string",
      bytes: () => v instanceof Uint8Array,
      array: () => v && typeof v === "object" && typeof v.dtype === "string" && Array.isArray(v.shape) && v.data instanceof Uint8Array,
    }[kind];
    if (!ok || !ok()) throw new TypeError(where + ": not a " + kind);
  }

  // strict, like mpc_rr.core.Codec: known tag, exactly the schema's fields, each of its kind
  function check(msg) {
    if (!msg || typeof msg !== "object") throw new TypeError("a message is a map");
    const s = spec(msg[schema.tag]);
    const keys = Object.keys(msg).filter((k) => k !== schema.tag);
    if (keys.length !== s.fields.length) throw new TypeError(msg[schema.tag] + ": wrong fields " + keys);
    for (const [f, kind] of s.fields) {
      if (!(f in msg)) throw new TypeError(msg[schema.tag] + ": missing " + f);
      checkKind(kind, msg[f], msg[schema.tag] + "." + f);
    }
    if (msg.v !== schema.version) throw new TypeError("wire version " + msg.v + ", this page speaks " + schema.version);
    return msg;
  }

  function decode(bytes) { return check(root.msgpack.decode(bytes)); }
  function encode(msg) { return root.msgpack.encode(check(msg)); }

  // a frame on the WebSocket: u32 peer (big-endian), then the message (transports.websocket)
  function frame(peer, msg) {
    const body = encode(msg);
    const out = new Uint8Array(4 + body.length);
    new DataView(out.buffer).setUint32(0, peer);
    out.set(body, 4);
    return out;
  }
  function unframe(buf) {
    const b = new Uint8Array(buf);
    if (b.length < 4) throw new RangeError("frame shorter than its peer id");
    return [new DataView(b.buffer).getUint32(0), decode(b.subarray(4))];
  }

  // numpy arrays on the wire (mpc_rr.core.WireArray): little-endian raw bytes
  const WIDTH = { "|u1": 1, "<u2": 2, "<u4": 4, "<i8": 8, "<u8": 8 };
  // values: a flat list; shape defaults to [values.length] (row-major, like numpy's tobytes)
  function toArray(values, dtype, shape) {
    const w = WIDTH[dtype];
    const data = new Uint8Array(values.length * w);
    const dv = new DataView(data.buffer);
    values.forEach((v, i) => {
      if (w === 1) dv.setUint8(i, v);
      else if (w === 2) dv.setUint16(2 * i, v, true);
      else if (w === 4) dv.setUint32(4 * i, v, true);
      else if (dtype === "<u8") dv.setBigUint64(8 * i, BigInt(v), true);
      else dv.setBigInt64(8 * i, BigInt(v), true);
    });
    return { dtype, shape: shape || [values.length], data };
  }
  function fromArray(a, dtype, length) {
    const w = WIDTH[dtype];
    const size = a.shape.reduce((x, y) => x * y, 1);
    if (length === undefined) length = size;
    if (a.dtype !== dtype || size !== length || a.data.length !== w * length)
      throw new TypeError("array: expected " + dtype + " x " + length);
    const dv = new DataView(a.data.buffer, a.data.byteOffset, a.data.byteLength);
    const out = [];
    for (let i = 0; i < length; i++) {
      out.push(w === 1 ? dv.getUint8(i) : w === 2 ? dv.getUint16(2 * i, true)
        : w === 4 ? dv.getUint32(4 * i, true)
        : dtype === "<u8" ? Number(dv.getBigUint64(8 * i, true)) : Number(dv.getBigInt64(8 * i, true)));
    }
    return out;
  }
  // numpy's smallest unsigned dtype holding modulus - 1 (mpc_rr.secure_sum smallest_uint)
  function residueDtype(modulus) {
    return modulus - 1 < 256 ? "|u1" : modulus - 1 < 65536 ? "<u2" : modulus - 1 < 4294967296 ? "<u4" : "<u8";
  }

  root.wire = { load, make, check, encode, decode, frame, unframe, toArray, fromArray, residueDtype,
    get schema() { return schema; }, set schema(s) { schema = s; } };
})(typeof window !== "undefined" ? window : globalThis);
