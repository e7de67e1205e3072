# Reference values for power/reference_test.go, computed by R 4.2 alone:
#
#   Rscript power/testdata/refgen/reference.R > /tmp/power_ref.txt
#
# exact2x2, MESS and PropCIs are not installable here (no CRAN), so their
# published example values are pinned in the tests as published, and
# every other value below is computed in base R from the definitions
# (mcnemar.test, binom.test, prop.test, power.prop.test, uniroot), never
# from the Go package. Each section prints Go literal rows.

g <- function(x) formatC(x, digits = 17, format = "g")
z2 <- function(alpha) qnorm(1 - alpha / 2)

tables <- list(
  c(1, 1, 7, 12),     # Bentur et al. 2009 (Fagerland, Lydersen & Laake 2014)
  c(0, 0, 0, 10),     # B+C = 0
  c(5, 3, 3, 9),      # B = C
  c(10, 0, 6, 4),     # B = 0
  c(10, 6, 0, 4),     # C = 0
  c(23, 15, 19, 31),  # statsmodels example
  c(50, 2, 9, 39),    # exact2x2 vignette b = 2, c = 9
  c(50, 40, 20, 50),  # PropCIs scoreci.mp example b = 40, c = 20, n = 160
  c(100, 25, 40, 300),
  c(3, 1, 0, 2),      # |B-C| = 1: corrected statistic 0
  c(0, 120, 95, 0),
  c(1000, 512, 603, 2000),
  c(0, 1, 0, 0),      # n = 1
  c(7, 0, 1, 7),
  c(166, 3, 0, 31),   # the seed's three lost conversations in 200
  c(5, 10, 9, 6),     # 2m+1 = B+C: binom.test(10, 19)$p.value is exactly 1
  c(5, 9, 10, 6),     # the same, mirrored: binom.test(9, 19)
  c(2, 10, 10, 3),    # B = C: binom.test(10, 20)$p.value is 1
  c(0, 501, 500, 0)   # 2m+1 = B+C far from the first few
)

cat("// ---- McNemar tests: mcnemar.test (correct = FALSE / TRUE), binom.test, mid-p\n")
for (t in tables) {
  A <- t[1]; B <- t[2]; C <- t[3]; D <- t[4]; d <- B + C
  x <- matrix(c(A, C, B, D), 2)  # x[1,2] = B, x[2,1] = C
  if (d == 0) {
    cat(sprintf("{t: Table{%d, %d, %d, %d}, exact: 1, midp: 1, chi: 0, chiP: 1, cc: 0, ccP: 1, src: \"B+C = 0: R's mcnemar.test gives NaN and binom.test refuses n = 0; p = 1, statistic 0 by definition\"},\n", A, B, C, D))
    next
  }
  u <- mcnemar.test(x, correct = FALSE)
  k <- mcnemar.test(x, correct = TRUE)
  ex <- binom.test(B, d, 0.5)$p.value
  m <- min(B, C)
  midp <- if (B == C) 1 else min(1, 2 * pbinom(m - 1, d, 0.5) + dbinom(m, d, 0.5))
  cat(sprintf("{t: Table{%d, %d, %d, %d}, exact: %s, midp: %s, chi: %s, chiP: %s, cc: %s, ccP: %s, src: \"R mcnemar.test(matrix(c(%d,%d,%d,%d),2), correct=FALSE|TRUE), binom.test(%d, %d), mid-p 2*pbinom(m-1)+dbinom(m)\"},\n",
      A, B, C, D, g(ex), g(midp), g(unname(u$statistic)), g(u$p.value), g(unname(k$statistic)), g(k$p.value), A, C, B, D, B, d))
}

# Paired-difference intervals, candidate - reference = (C - B)/n.
wald_ci <- function(B, C, n, conf) {
  z <- z2(1 - conf); est <- (C - B) / n
  se <- sqrt(max(0, (B + C) - (C - B)^2 / n)) / n
  pmin(1, pmax(-1, c(est - z * se, est + z * se)))
}
# Tango (1998) score statistic for delta0 = pC - pB, restricted MLE of pB.
tango_T <- function(d0, B, C, n) {
  num <- C - B - n * d0
  if (num == 0) return(0)
  qa <- 2 * n; qb <- -C - B + (2 * n - C + B) * d0; qc <- -B * d0 * (1 - d0)
  p <- (sqrt(max(0, qb^2 - 4 * qa * qc)) - qb) / (2 * qa)
  v <- n * (2 * p + d0 * (1 - d0))
  if (v <= 0) return(sign(num) * Inf)
  num / sqrt(v)
}
tango_ci <- function(B, C, n, conf) {
  z <- z2(1 - conf); e <- 1e-13
  lo <- if (B == n) -1 else uniroot(function(d) tango_T(d, B, C, n) - z, c(-1 + e, 1 - e), tol = 1e-14)$root
  hi <- if (C == n) 1 else uniroot(function(d) tango_T(d, B, C, n) + z, c(-1 + e, 1 - e), tol = 1e-14)$root
  c(lo, hi)
}
# Newcombe (1998b) method 10 with Wilson intervals from prop.test.
wilson <- function(k, n, conf) {
  ci <- suppressWarnings(prop.test(k, n, conf.level = conf, correct = FALSE))$conf.int
  c(if (k == 0) 0 else ci[1], if (k == n) 1 else ci[2])
}
newcombe_ci <- function(A, B, C, D, conf) {
  n <- A + B + C + D
  p1 <- (A + C) / n; p2 <- (A + B) / n
  w1 <- wilson(A + C, n, conf); w2 <- wilson(A + B, n, conf)
  r1 <- A + B; r2 <- C + D; c1 <- A + C; c2 <- B + D
  phi <- 0
  if (r1 > 0 && r2 > 0 && c1 > 0 && c2 > 0) {
    num <- A * D - B * C
    if (num > n / 2) phi <- (num - n / 2) / sqrt(r1 * r2 * c1 * c2)
    else if (num < 0) phi <- num / sqrt(r1 * r2 * c1 * c2)
  }
  dl1 <- p1 - w1[1]; du2 <- w2[2] - p2; du1 <- w1[2] - p1; dl2 <- p2 - w2[1]
  lo <- (p1 - p2) - sqrt(max(0, dl1^2 - 2 * phi * dl1 * du2 + du2^2))
  hi <- (p1 - p2) + sqrt(max(0, du1^2 - 2 * phi * du1 * dl2 + dl2^2))
  c(max(-1, lo), min(1, hi), phi)
}

cat("// ---- paired intervals: wald and tango from their formulas, newcombe with prop.test Wilson intervals\n")
for (conf in c(0.95, 0.9, 0.99)) for (t in tables) {
  A <- t[1]; B <- t[2]; C <- t[3]; D <- t[4]; n <- sum(t)
  w <- wald_ci(B, C, n, conf); tg <- tango_ci(B, C, n, conf); nw <- newcombe_ci(A, B, C, D, conf)
  cat(sprintf("{t: Table{%d, %d, %d, %d}, conf: %s, wald: [2]float64{%s, %s}, newcombe: [2]float64{%s, %s}, phi: %s, tango: [2]float64{%s, %s}},\n",
      A, B, C, D, g(conf), g(w[1]), g(w[2]), g(nw[1]), g(nw[2]), g(nw[3]), g(tg[1]), g(tg[2])))
}

cat("// ---- power.prop.test: power at n\n")
pp <- list(c(200, 0.83, 0.815), c(100, 0.5, 0.6), c(50, 0.1, 0.2), c(500, 0.9, 0.95), c(1000, 0.3, 0.25),
           c(300, 0.02, 0.05), c(200, 0.83, 0.72), c(40, 0.5, 0.5), c(10, 0, 1), c(25, 0.99, 0.6))
for (alpha in c(0.05, 0.01)) for (x in pp) {
  r <- power.prop.test(n = x[1], p1 = x[2], p2 = x[3], sig.level = alpha)$power
  cat(sprintf("{n: %d, p1: %s, p2: %s, alpha: %s, power: %s},\n", x[1], g(x[2]), g(x[3]), g(alpha), g(r)))
}
cat("// ---- power.prop.test: n for a power (tol = 1e-12, and R's default tol)\n")
pn <- list(c(0.5, 0.75, 0.8, 0.05), c(0.83, 0.815, 0.8, 0.05), c(0.1, 0.2, 0.8, 0.05), c(0.9, 0.95, 0.9, 0.05),
           c(0.6, 0.5, 0.9, 0.05), c(0.05, 0.01, 0.8, 0.01), c(0.3, 0.35, 0.95, 0.1), c(0.83, 0.72, 0.8, 0.05))
for (x in pn) {
  a <- power.prop.test(p1 = x[1], p2 = x[2], power = x[3], sig.level = x[4], tol = 1e-12)$n
  b <- power.prop.test(p1 = x[1], p2 = x[2], power = x[3], sig.level = x[4])$n
  cat(sprintf("{p1: %s, p2: %s, power: %s, alpha: %s, n: %s, nDefaultTol: %s, ceil: %d},\n", g(x[1]), g(x[2]), g(x[3]), g(x[4]), g(a), g(b), as.integer(ceiling(a))))
}
cat("// ---- minimum detectable p1 below p2: power.prop.test(n, p2, power, tol = 1e-12)$p1\n")
pm <- list(c(200, 0.83, 0.8, 0.05), c(100, 0.5, 0.8, 0.05), c(1000, 0.95, 0.9, 0.05), c(50, 0.3, 0.8, 0.01), c(2000, 0.6, 0.8, 0.05))
for (x in pm) {
  p1 <- power.prop.test(n = x[1], p2 = x[2], power = x[3], sig.level = x[4], tol = 1e-12)$p1
  cat(sprintf("{n: %d, rate: %s, power: %s, alpha: %s, p2: %s},\n", x[1], g(x[2]), g(x[3]), g(x[4]), g(p1)))
}

# Connor (1987) and Miettinen (1968) formulas; pl = p_lost, pg = p_gained.
connor_power <- function(n, pl, pg, alpha) {
  psi <- pl + pg; d <- abs(pg - pl)
  pnorm((sqrt(n) * d - z2(alpha) * sqrt(psi)) / sqrt(psi - d^2))
}
connor_n <- function(pl, pg, alpha, power) {
  psi <- pl + pg; d <- abs(pg - pl)
  ((z2(alpha) * sqrt(psi) + qnorm(power) * sqrt(psi - d^2)) / d)^2
}
miettinen_power <- function(n, pl, pg, alpha) {
  psi <- pl + pg; d <- abs(pg - pl)
  pnorm((d * sqrt(n * psi) - z2(alpha) * psi) / sqrt(psi^2 - d^2 * (3 + psi) / 4))
}
miettinen_n <- function(pl, pg, alpha, power) {
  psi <- pl + pg; d <- abs(pg - pl)
  (z2(alpha) * psi + qnorm(power) * sqrt(psi^2 - d^2 * (3 + psi) / 4))^2 / (psi * d^2)
}
cat("// ---- connor and miettinen: power at n, n for a power\n")
cp <- list(c(22, 0.05, 0.45, 0.05, 0.8), c(100, 0.1, 0.2, 0.05, 0.8), c(200, 0.015, 0, 0.05, 0.8), c(50, 0.125, 0.25, 0.05, 0.9),
           c(1000, 0.02, 0.03, 0.05, 0.8), c(300, 0.3, 0.2, 0.01, 0.9), c(80, 0.1, 0.05, 0.1, 0.5))
for (x in cp) {
  cat(sprintf("{n: %d, pl: %s, pg: %s, alpha: %s, target: %s, connorPower: %s, connorN: %s, miettinenPower: %s, miettinenN: %s},\n",
      x[1], g(x[2]), g(x[3]), g(x[4]), g(x[5]), g(connor_power(x[1], x[2], x[3], x[4])), g(connor_n(x[2], x[3], x[4], x[5])),
      g(miettinen_power(x[1], x[2], x[3], x[4])), g(miettinen_n(x[2], x[3], x[4], x[5]))))
}
cat("// ---- paired MDE with p_gained = 0: uniroot of Connor's power in p_lost (tol 1e-14)\n")
for (x in list(c(200, 0.05, 0.8), c(1000, 0.05, 0.9), c(40, 0.01, 0.8), c(5000, 0.1, 0.5))) {
  f <- function(p) connor_power(x[1], p, 0, x[2]) - x[3]
  r <- uniroot(f, c(1e-12, min(1, x[1] / z2(x[2])^2) - 1e-12), tol = 1e-14)$root
  cat(sprintf("{n: %d, alpha: %s, power: %s, pLost: %s},\n", x[1], g(x[2]), g(x[3]), g(r)))
}

# Exact conditional McNemar power by brute force over every table:
# the (B, C) multinomial probability times whether binom.test rejects.
# strict = TRUE counts rejections in either direction (our definition);
# strict = FALSE counts only the direction of the effect at alpha/2, as
# exact2x2's powerPaired2x2 default.
exact_power_bf <- function(pl, pg, n, alpha, strict = TRUE) {
  pr <- 0
  for (B in 0:n) for (C in 0:(n - B)) {
    if (B + C == 0) next
    if (strict) {
      rej <- binom.test(B, B + C, 0.5)$p.value <= alpha
    } else {
      alt <- if (pl > pg) "greater" else "less"
      rej <- binom.test(B, B + C, 0.5, alternative = alt)$p.value <= alpha / 2
    }
    if (rej) pr <- pr + dmultinom(c(n - B - C, B, C), prob = c(1 - pl - pg, pl, pg))
  }
  pr
}
cat("// ---- exact power, brute force over all tables with binom.test\n")
ep <- list(c(0.5, 0.3, 100, 0.05), c(0.3, 0.5, 100, 0.05), c(0.05, 0.45, 23, 0.05), c(0.1, 0.2, 60, 0.05),
           c(0.02, 0.06, 150, 0.05), c(0.25, 0, 20, 0.05), c(0, 0.1, 30, 0.05), c(0.2, 0.2, 50, 0.05),
           c(0.3, 0.3, 80, 0.01), c(0.6, 0.4, 40, 0.05), c(0.15, 0.05, 90, 0.1))
for (x in ep) {
  cat(sprintf("{pl: %s, pg: %s, n: %d, alpha: %s, power: %s},\n", g(x[1]), g(x[2]), x[3], g(x[4]), g(exact_power_bf(x[1], x[2], x[3], x[4]))))
}
cat(sprintf("// strict = FALSE (exact2x2's default) for pb = 0.5, pc = 0.3, n = 100: %s\n", g(exact_power_bf(0.5, 0.3, 100, 0.05, strict = FALSE))))

# Exact sample size by scanning n: c(m) from binom.test over every x,
# power(n) = sum_m dbinom(m, n, psi) c(m). first = smallest n reaching the
# target; stable = smallest n with every n' in [n, floor(1.1 n)] reaching it.
cat("// ---- exact sample size by scanning every n\n")
exact_ss <- function(pl, pg, alpha, target, nmax) {
  psi <- pl + pg; th <- pg / psi
  cm <- numeric(nmax + 1); cs <- numeric(nmax + 1)
  for (m in 1:nmax) {
    pv <- sapply(0:m, function(x) binom.test(x, m, 0.5)$p.value)
    rej <- pv <= alpha
    cm[m + 1] <- sum(dbinom(0:m, m, th)[rej])
    cs[m + 1] <- sum(dbinom(0:m, m, 0.5)[rej])
  }
  pw <- sapply(1:nmax, function(n) sum(dbinom(0:n, n, psi) * cm[1:(n + 1)]))
  sz <- sapply(1:nmax, function(n) sum(dbinom(0:n, n, psi) * cs[1:(n + 1)]))
  ok <- pw >= target
  first <- which(ok)[1]
  stable <- NA
  for (n in first:nmax) if (floor(1.1 * n) <= nmax && all(ok[n:floor(1.1 * n)])) { stable <- n; break }
  cat(sprintf("{pl: %s, pg: %s, alpha: %s, target: %s, first: %d, stable: %d, power: %s, size: %s},\n",
      g(pl), g(pg), g(alpha), g(target), first, stable, g(pw[stable]), g(sz[stable])))
}
exact_ss(0.05, 0.45, 0.05, 0.8, 80)
exact_ss(0.1, 0.3, 0.05, 0.8, 160)
exact_ss(0.4, 0.6, 0.05, 0.8, 300)
exact_ss(0.2, 0.05, 0.05, 0.9, 200)
exact_ss(0.02, 0.06, 0.05, 0.8, 480)

cat("// ---- the seed's plan: rate 0.83 over 200, three conversations failing\n")
se <- sqrt(0.83 * 0.17 / 200)
cat(sprintf("// se %s wald %s %s\n", g(se), g(0.83 - z2(0.05) * se), g(0.83 + z2(0.05) * se)))
cat(sprintf("// power.prop.test(n=200, p1=0.83, p2=0.815)$power %s\n", g(power.prop.test(n = 200, p1 = 0.83, p2 = 0.815)$power)))
cat(sprintf("// power.prop.test(p1=0.83, p2=0.815, power=0.8, tol=1e-12)$n %s\n", g(power.prop.test(p1 = 0.83, p2 = 0.815, power = 0.8, tol = 1e-12)$n)))
cat(sprintf("// connor n(p_lost = 0.015, p_gained = 0) %s\n", g(connor_n(0.015, 0, 0.05, 0.8))))
cat(sprintf("// power.prop.test(n=200, p2=0.83, power=0.8, tol=1e-12)$p1 %s\n", g(power.prop.test(n = 200, p2 = 0.83, power = 0.8, tol = 1e-12)$p1)))
r <- uniroot(function(p) connor_power(200, p, 0, 0.05) - 0.8, c(1e-12, 1 - 1e-12), tol = 1e-14)$root
cat(sprintf("// paired MDE at 200 %s\n", g(r)))
