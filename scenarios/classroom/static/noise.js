// The noise lesson in the student's browser: this page's share of distributed Skellam noise,
// added to its one-hot answer before the answer enters the SecAgg+ sum
// (scenarios.classroom.noise_lesson, mpc_rr.secure_sum._noise: each student adds Sk(v / h_min)
// per option, clipped to [-c, c] and offset by c, so that it sends x + z + c in [0, 1 + 2c]).
//
// The sampler.  Sk(s) = Poisson(s/2) - Poisson(s/2) (the library's skellam_noise).  Poisson(lam)
// by Knuth's multiplication method: the number of uniforms whose running product stays above
// e^-lam -- exact for exact uniforms.  The uniforms are doubles with 53 random bits from
// crypto.getRandomValues (two 32-bit words: 27 + 26 bits; the words fetched 64 KiB at a time, each used once), so each draw is exact up to that
// resolution and the double rounding of the product (a relative error below k * 2^-53 after k
// factors).  A large lam is split into pieces of at most 16 (a sum of independent Poisson draws
// is Poisson of the summed rates), so e^-piece never underflows and the cost is O(lam) uniforms.
"use strict";
(function (root) {
  const N = (root.noise = {});
  const PIECE = 16;
  const pool = new Uint32Array(16384);  // CSPRNG words fetched 64 KiB at a time (a call each draw is slow)
  let used = pool.length;
  function uniform53() {
    if (used + 2 > pool.length) { root.crypto.getRandomValues(pool); used = 0; }
    const a = pool[used++] >>> 5, b = pool[used++] >>> 6;
    return (a * 67108864 + b) / 9007199254740992;  // [0, 1), 53 bits
  }
  function poissonSmall(lam) {
    const limit = Math.exp(-lam);
    let k = 0, p = uniform53();
    while (p > limit) { k += 1; p *= uniform53(); }
    return k;
  }
  N.poisson = function (lam) {
    if (!(lam >= 0) || !Number.isFinite(lam)) throw new Error("Poisson rate must be finite and >= 0, got " + lam);
    let k = 0, left = lam;
    while (left > PIECE) { k += poissonSmall(PIECE); left -= PIECE; }
    return k + (left > 0 ? poissonSmall(left) : 0);
  };
  N.skellam = function (variance) { return N.poisson(variance / 2) - N.poisson(variance / 2); };
  N.sample = function (variance, count) { return Array.from({ length: count }, () => N.skellam(variance)); };

  // r.noise: {variance, offset, epsilon, delta, honest_min} from the round; x: the one-hot answer
  N.add = function (r, x, note) {
    const c = r.noise.offset;
    const z = x.map(() => Math.max(-c, Math.min(c, N.skellam(r.noise.variance))));
    const entered = x.map((v, i) => v + z[i]);
    N.last = { x, z, entered };
    const el = document.getElementById("coin");
    if (el) el.textContent = "Your noise, drawn on this device: " + r.options.map((o, i) => `${o} ${z[i] >= 0 ? "+" : ""}${z[i]}`).join(", ")
      + ". Your answer enters the sum as " + r.options.map((o, i) => `${o} ${entered[i]}`).join(", ")
      + ` -- with noise of spread ${Math.sqrt(r.noise.variance).toFixed(1)} per option, it does not say what you chose.`;
    if (note) note(`noise lesson: my noise ${z.join(",")} (Skellam, variance ${r.noise.variance.toFixed(3)}); x + z = ${entered.join(",")}, sent as x + z + ${c}`);
    return x.map((v, i) => v + z[i] + c);
  };
})(typeof window !== "undefined" ? window : globalThis);
