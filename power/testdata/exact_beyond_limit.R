# Unconditional power of the two-sided exact conditional McNemar test
# (the rejection rule of power/exact.go: X <= r(m) or X >= m - r(m)).
pw <- function(n, pl, pg, alpha = 0.05) {
  psi <- pl + pg; th <- pg / psi; s <- 0
  mean <- n * psi; hi <- ceiling(mean + 12 * sqrt(mean) + 40)
  for (m in 1:hi) {
    r <- -1
    for (k in 0:(ceiling(m / 2) - 1)) if (2 * k < m && 2 * pbinom(k, m, 0.5) <= alpha) r <- k
    c <- if (r < 0) 0 else pbinom(r, m, th) + pbinom(r, m, 1 - th)
    s <- s + dbinom(m, n, psi) * c
  }
  s
}
print(pw(1e9, 3e-9, 0), digits = 12)
print(pw(2e6, 2e-6, 1e-6), digits = 12)
print(pw(5e8, 4e-8, 1e-8), digits = 12)
