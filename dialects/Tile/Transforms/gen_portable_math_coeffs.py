#!/usr/bin/env python3
"""Generates the constants of tile-expand-portable-math (PortableMathFunctions.cpp).

Prints a C++ block to paste between the BEGIN/END GENERATED markers of
PortableMathFunctions.cpp, and the approximation error of each polynomial after its
coefficients are rounded to double (stderr). Standard library only: `decimal` at 80 digits
for the reference values, a Remez exchange on a Chebyshev grid for the minimax fits.

    python3 dialects/Tile/Transforms/gen_portable_math_coeffs.py > /tmp/coeffs.inc

Each fit approximates a smooth remainder g (a series without cancellation) with weight w, so
that max |w * (g - p)| is the error of the final function, relative (or absolute for erf on
[1, 4], where erf >= 0.84).
"""
import decimal
import math
import struct
import sys
from decimal import Decimal as D

decimal.getcontext().prec = 80
EPS = D(10) ** -76


def machin_pi():
    """pi = 16 atan(1/5) - 4 atan(1/239), summed in Decimal."""

    def atan_inv(n):
        x = D(1) / n
        x2 = x * x
        total, term, k = D(0), x, 0
        while abs(term) > EPS * EPS:
            total += term / (2 * k + 1) * (-1 if k % 2 else 1)
            term *= x2
            k += 1
        return total

    return 16 * atan_inv(5) - 4 * atan_inv(239)


PI = machin_pi()
LN2 = D(2).ln()


def series(coef, x, start=0):
    """sum_{n >= start} coef(n) * x^(n - start) until the terms vanish."""
    total, power, n = D(0), D(1), start
    while True:
        term = coef(n) * power
        total += term
        if abs(term) < EPS and n > start + 4:
            return total
        power *= x
        n += 1


# Remainders approximated by the polynomials (argument -> value).
def exp_q(r):  # (e^r - 1 - r) / r^2
    return series(lambda n: D(1) / math.factorial(n), r, 2)


def log1p_t(f):  # (log1p(f) - f + f^2/2) / f^3
    return series(lambda n: D(-1 if n % 2 == 0 else 1) / n, f, 3)


def sin_s(u):  # (sin(r) - r) / r^3 with u = r^2
    return series(lambda n: D(-1 if n % 2 else 1) / math.factorial(2 * n + 1), u, 1)


def cos_c(u):  # (cos(r) - 1 + r^2/2) / r^4 with u = r^2
    return series(lambda n: D(-1 if n % 2 else 1) / math.factorial(2 * n), u, 2)


def erf_p(u):  # erf(x) / x with u = x^2
    two_over_sqrt_pi = 2 / PI.sqrt()
    return two_over_sqrt_pi * series(
        lambda n: D(-1 if n % 2 else 1) / (math.factorial(n) * (2 * n + 1)), u, 0)


_erfc_cache = {}


def erfc(x):
    if x not in _erfc_cache:
        _erfc_cache[x] = 1 - x * erf_p(x * x)
    return _erfc_cache[x]


# ---- Remez exchange ------------------------------------------------------------------------
def solve(a, b):
    n = len(a)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[r][c] != 0:
                factor = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= factor * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def cheb_grid(lo, hi, n):
    pts = [(lo + hi) / 2 + (hi - lo) / 2 * D(math.cos(math.pi * (i + 0.5) / n)) for i in range(n)]
    return sorted(pts)


def poly(coeffs, x):
    acc = D(0)
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def remez(g, w, degree, lo, hi, ngrid=1200, iters=40):
    """Coefficients c0..c_degree minimizing max |w(x) (g(x) - sum c_j x^j)| on [lo, hi]."""
    n = degree + 1
    grid = cheb_grid(lo, hi, ngrid)
    gv = [g(x) for x in grid]
    wv = [w(x) for x in grid]
    ref = [round((ngrid - 1) * k / n) for k in range(n + 1)]
    coeffs = None
    for _ in range(iters):
        rows = [[grid[i] ** j for j in range(n)] + [D(-1 if k % 2 else 1) / wv[i]]
                for k, i in enumerate(ref)]
        sol = solve(rows, [gv[i] for i in ref])
        coeffs, level = sol[:n], abs(sol[n])
        err = [wv[i] * (gv[i] - poly(coeffs, grid[i])) for i in range(ngrid)]
        runs, cur = [], [0]
        for i in range(1, ngrid):
            if (err[i] >= 0) == (err[cur[0]] >= 0):
                cur.append(i)
            else:
                runs.append(cur)
                cur = [i]
        runs.append(cur)
        ext = [max(r, key=lambda i: abs(err[i])) for r in runs]
        while len(ext) > n + 1:
            ext.pop(0 if abs(err[ext[0]]) < abs(err[ext[-1]]) else -1)
        if len(ext) < n + 1:
            break
        ref = ext
        if max(abs(e) for e in err) <= level * D("1.00001"):
            break
    return [float(c) for c in coeffs]


def rounded_error(g, w, coeffs, lo, hi, ngrid=3000):
    """log2 of max |w (g - p)| with the double coefficients, on a finer grid."""
    cs = [D(c) for c in coeffs]
    worst = max(abs(w(x) * (g(x) - poly(cs, x))) for x in cheb_grid(lo, hi, ngrid))
    return math.log2(float(worst))


# ---- Constants -----------------------------------------------------------------------------
def f64(x):
    return float(x)


def hi_bits(x, bits):
    """x rounded to `bits` significant bits (so that small multiples of it are exact)."""
    e = math.floor(math.log2(abs(float(x))))
    scale = D(2) ** (bits - 1 - e)
    return float((x * scale).to_integral_value(rounding=decimal.ROUND_HALF_EVEN) / scale)


def split_dd(x, hi_significant_bits=53):
    hi = hi_bits(x, hi_significant_bits) if hi_significant_bits < 53 else f64(x)
    return hi, f64(x - D(hi))


def veltkamp(x):
    """x = hi + lo with hi, lo of at most 26 bits each (Veltkamp's split, in doubles)."""
    c = x * 134217729.0
    hi = c - (c - x)
    return hi, x - hi


def bits_of(x):
    return struct.unpack("<q", struct.pack("<d", x))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<q", b))[0]


def best_magic(err_of, lo, hi):
    """Ternary search for the integer magic constant of a bit-trick initial guess."""
    for _ in range(64):
        m1, m2 = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        if err_of(m1) < err_of(m2):
            hi = m2
        else:
            lo = m1
    return lo


def recip_err(k, n=4000):
    return max(abs(from_bits(k - bits_of(1 + i / n)) * (1 + i / n) - 1) for i in range(n))


def rsqrt_err(k, n=4000):
    return max(abs(from_bits(k - (bits_of(1 + 3 * i / n) >> 1)) * math.sqrt(1 + 3 * i / n) - 1)
               for i in range(n))


def cxx_array(name, values, comment):
    body = ",\n".join("    " + v.hex() for v in values)
    return f"// {comment}\nconstexpr double {name}[] = {{\n{body},\n}};\n"


def cxx_scalar(name, value, comment):
    if isinstance(value, int):
        return f"constexpr int64_t {name} = {value:#x}; // {comment}\n"
    return f"constexpr double {name} = {value.hex()}; // {comment}\n"


def main():
    out = []
    report = []

    def fit(name, comment, g, w, degree, lo, hi):
        c = remez(g, w, degree, D(lo), D(hi))
        err = rounded_error(g, w, c, D(lo), D(hi))
        report.append(f"{name}: degree {degree} on [{float(lo):.6g}, {float(hi):.6g}], "
                      f"max weighted error 2^{err:.2f}")
        out.append(cxx_array(name, c, f"{comment}; max error 2^{err:.1f} (weighted)"))

    margin = D("1.0001")
    r_exp = D("0.5") * LN2 * D("1.001")
    # Weighted for the relative error of e^r - 1 (tanh needs it); that bounds e^r's error too.
    fit("kExpQ", "e^r = 1 + r + r^2 q(r), |r| <= ln2/2; error relative to e^r - 1", exp_q,
        lambda r: r * r / abs(r + r * r * exp_q(r)) if r != 0 else D(0), 9, -r_exp, r_exp)
    # exp and exp2 alone, weighted for the relative error of e^r: degree 7 is good to 2^-45.8,
    # which is what exp's reduction (x log2 e rounded once, 2^-46.2 relative) leaves anyway.
    fit("kExpLightQ", "e^r = 1 + r + r^2 q(r), |r| <= ln2/2; error relative to e^r (exp, exp2)", exp_q,
        lambda r: r * r / (1 + r + r * r * exp_q(r)), 7, -r_exp, r_exp)
    fit("kLog1pT", "log1p(f) = f - f^2/2 + f^3 t(f), |f| <= 0.2; relative error", log1p_t,
        lambda f: abs(f) ** 3 / abs((1 + f).ln()) if f != 0 else D(0), 14,
        D("-0.2") * margin, D("0.2") * margin)
    u_trig = (PI / 4 * D("1.001")) ** 2
    fit("kSinS", "sin(r) = r + r^3 s(r^2), |r| <= pi/4; relative error", sin_s,
        lambda u: u * u.sqrt() / (u.sqrt() + u * u.sqrt() * sin_s(u)) if u > 0 else D(0), 5,
        D(0), u_trig)
    fit("kCosC", "cos(r) = 1 - r^2/2 + r^4 c(r^2), |r| <= pi/4; relative error", cos_c,
        lambda u: u * u / (1 - u / 2 + u * u * cos_c(u)), 4, D(0), u_trig)
    fit("kErfP", "erf(x) = x p(x^2), |x| < 1; relative error", erf_p,
        lambda u: 1 / erf_p(u), 10, D(0), D(1) * margin)
    fit("kErfL", "erf(x) = 1 - 2^l(x - 2.5), 1 <= x <= 4; absolute error of erf",
        lambda t: erfc(t + D("2.5")).ln() / LN2, lambda t: erfc(t + D("2.5")) * LN2, 14,
        D("-1.5"), D("1.5"))

    ln2_hi, ln2_lo = split_dd(LN2, 42)
    inv_ln2_hi, inv_ln2_lo = split_dd(1 / LN2)
    log43_hi, log43_lo = split_dd((D(4) / 3).ln())
    scalars = [
        cxx_scalar("kLn2Hi", ln2_hi, "ln 2 to 42 bits: k * kLn2Hi is exact for |k| < 2^11"),
        cxx_scalar("kLn2Lo", ln2_lo, "ln 2 - kLn2Hi"),
        cxx_scalar("kLn2", f64(LN2), "ln 2"),
        cxx_scalar("kLog2E", f64(1 / LN2), "1 / ln 2"),
        cxx_scalar("kInvLn2Hi", inv_ln2_hi, "1 / ln 2, high double"),
        cxx_scalar("kInvLn2Lo", inv_ln2_lo, "1 / ln 2 - kInvLn2Hi"),
        cxx_scalar("kInvLn2Hi26", veltkamp(inv_ln2_hi)[0],
                   "26-bit head of kInvLn2Hi (Dekker's product)"),
        cxx_scalar("kInvLn2Tail", veltkamp(inv_ln2_hi)[1], "kInvLn2Hi - kInvLn2Hi26"),
        cxx_scalar("kLog4Over3Hi", log43_hi, "ln(4/3), high double"),
        cxx_scalar("kLog4Over3Lo", log43_lo, "ln(4/3) - kLog4Over3Hi"),
        cxx_scalar("kPiOver2", f64(PI / 2), "pi / 2"),
    ]
    # 2/pi in 8 chunks of 28 bits: chunk i is an integer < 2^28 times 2^(-28 (i + 1)), so its
    # product with any f32 (24 bits) is exact in double.
    two_over_pi_bits = int((2 / PI) * (D(2) ** 224))
    chunks = [float(D((two_over_pi_bits >> (28 * (7 - i))) & ((1 << 28) - 1)) / D(2) ** (28 * (i + 1)))
              for i in range(8)]
    out.append(cxx_array("kTwoOverPiChunks", chunks,
                         "2/pi = sum of these (to 2^-224), each 28 bits wide"))
    k_recip = best_magic(recip_err, 0x7FDE000000000000, 0x7FE0000000000000)
    k_rsqrt = best_magic(rsqrt_err, 0x5FE6000000000000, 0x5FE8000000000000)
    report.append(f"reciprocal seed error {recip_err(k_recip):.4g}, "
                  f"rsqrt seed error {rsqrt_err(k_rsqrt):.4g}")
    scalars.append(cxx_scalar("kRecipMagic", k_recip,
                              f"1/d ~ bits(K - bits(d)), error {recip_err(k_recip):.3g}"))
    scalars.append(cxx_scalar("kRsqrtMagic", k_rsqrt,
                              f"1/sqrt(d) ~ bits(K - bits(d)/2), error {rsqrt_err(k_rsqrt):.3g}"))
    print("// BEGIN GENERATED by dialects/Tile/Transforms/gen_portable_math_coeffs.py")
    print("".join(scalars), end="")
    print("\n".join(out), end="")
    print("// END GENERATED")
    print("\n".join(report), file=sys.stderr)


if __name__ == "__main__":
    main()
