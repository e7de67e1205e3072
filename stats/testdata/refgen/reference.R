# Reference values for stats/reference_test.go computed with base R.
#
#   Rscript stats/testdata/refgen/reference.R
#
# prints Go table rows (with %.17g floats) for
#   - refSingleRate:  clopper-pearson (binom.test), wilson and wilson-cc
#                     (prop.test with correct=FALSE / TRUE);
#   - refSampleSizeWald: max(1, ceiling(qnorm(1-alpha/2)^2 p(1-p)/h^2)).
# Paste them into the corresponding tables. Written for R 4.2.

g <- function(x) sprintf("%.17g", x)

# The single-rate cases; keep in step with reference.py.
cases <- list(
  c(0, 1, 0.90), c(1, 1, 0.99), c(0, 10, 0.95), c(10, 10, 0.95),
  c(0, 50, 0.99), c(50, 50, 0.90), c(3, 20, 0.90), c(7, 13, 0.99),
  c(17, 60, 0.95), c(1, 3, 0.95), c(2, 7, 0.80), c(5, 10, 0.95),
  c(166, 200, 0.95), c(3, 1000, 0.95), c(9999, 10000, 0.99),
  c(1, 10000, 0.90)
)

row <- function(method, k, n, conf, ci, src) {
  cat(sprintf("\t{m: %s, k: %d, n: %d, conf: %s, lo: %s, hi: %s, src: %s},\n",
              method, k, n, format(conf), g(ci[1]), g(ci[2]), dQuote(src, FALSE)))
}

cat("\t// clopper-pearson: R binom.test\n")
for (cs in cases) {
  k <- cs[1]; n <- cs[2]; conf <- cs[3]
  ci <- binom.test(k, n, conf.level = conf)$conf.int
  row("ClopperPearson", k, n, conf, ci,
      sprintf("R binom.test(%d, %d, conf.level=%s)$conf.int", k, n, format(conf)))
}

cat("\t// wilson: R prop.test without continuity correction\n")
for (cs in cases) {
  k <- cs[1]; n <- cs[2]; conf <- cs[3]
  ci <- suppressWarnings(prop.test(k, n, conf.level = conf, correct = FALSE)$conf.int)
  row("Wilson", k, n, conf, ci,
      sprintf("R prop.test(%d, %d, conf.level=%s, correct=FALSE)$conf.int", k, n, format(conf)))
}

cat("\t// wilson-cc: R prop.test with continuity correction (k = n/2 left out:\n")
cat("\t// there R shrinks the correction to |k - n/2| = 0, Newcombe's method 4 does not)\n")
for (cs in cases) {
  k <- cs[1]; n <- cs[2]; conf <- cs[3]
  if (2 * k == n) next
  ci <- suppressWarnings(prop.test(k, n, conf.level = conf, correct = TRUE)$conf.int)
  row("WilsonCC", k, n, conf, ci,
      sprintf("R prop.test(%d, %d, conf.level=%s, correct=TRUE)$conf.int", k, n, format(conf)))
}

cat("\n\t// refSampleSizeWald rows\n")
ss <- list(
  c(0.5, 0.05, 0.95), c(0.5, 0.03, 0.95), c(0.1, 0.02, 0.90),
  c(0.8, 0.01, 0.99), c(0.03, 0.005, 0.95), c(0.9, 0.1, 0.80),
  c(0.25, 0.2, 0.95), c(0, 0.05, 0.95)
)
for (s in ss) {
  p <- s[1]; h <- s[2]; conf <- s[3]
  raw <- qnorm(1 - (1 - conf) / 2)^2 * p * (1 - p) / h^2
  # Go's SampleSizeWald subtracts 1e-9 before rounding up; make sure no
  # case sits that close to an integer.
  if (raw > 0 && abs(raw - round(raw)) < 1e-6) stop("raw size too close to an integer: ", g(raw))
  n <- max(1, ceiling(raw))
  cat(sprintf("\t{rate: %s, h: %s, conf: %s, want: %d, src: %s},\n",
              format(p), format(h), format(conf), as.integer(n),
              dQuote(sprintf("R max(1, ceiling(qnorm(1-(1-%s)/2)^2*%s*(1-%s)/%s^2)) = max(1, ceiling(%s))",
                             format(conf), format(p), format(p), format(h), g(raw)), FALSE)))
}
