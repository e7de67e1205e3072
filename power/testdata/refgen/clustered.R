# Clustered paired tests in base R, for power/cluster_test.go (R 4.2).
#   Rscript power/testdata/refgen/clustered.R
# Orientation: per cluster k, n_k item pairs, lost_k (reference ok,
# candidate fails) and gained_k; x_k = lost_k - gained_k. The formulas are
# those of Yang, Sun & Hardin (2010, Biometrical Journal 52:638) as the
# clust.bin.pair package implements them (its thyroid example prints
# Obuchowski chi-square = 2.8571, p-value = 0.09097 and Yang modified
# 3.1317, 0.07679), with b - c = gained - lost; and the Durkalski et al.
# (2003, Stat Med 22:279) non-inferiority Wald statistic.
options(digits = 17)
clus <- function(n, lost, gained, margins = c(0.05, 0.1, 0.15, 0.2)) {
  x <- lost - gained; K <- length(n); N <- sum(n); X <- sum(x)
  dhat <- X / N                       # lost - gained, per pair
  O <- ((K - 1) / K) * X^2 / sum(x^2)
  D <- sum(x / n)^2 / sum((x / n)^2)
  Y <- ((K - 1) / K) * X^2 / (0.5 * sum((x - n * dhat)^2 + x^2))
  zs <- c(X / sqrt(K / (K - 1) * sum(x^2)),
          sum(x / n) / sqrt(sum((x / n)^2)),
          X / sqrt(K / (K - 1) * 0.5 * sum((x - n * dhat)^2 + x^2)))
  cat(sprintf("K=%d N=%d lost=%d gained=%d\n", K, N, sum(lost), sum(gained)))
  for (i in 1:3) cat(sprintf("  %-10s chi2 %.17g p %.17g z %.17g one-sided %.17g\n",
      c("obuchowski", "durkalski", "yang")[i], c(O, D, Y)[i],
      pchisq(c(O, D, Y)[i], 1, lower.tail = FALSE), zs[i], pnorm(zs[i], lower.tail = FALSE)))
  delta <- (sum(gained) - sum(lost)) / N   # candidate - reference
  se <- sqrt(K / ((K - 1) * N^2) * sum(((gained - lost) - n * delta)^2))
  for (m in margins) cat(sprintf("  NI margin %.2f: z %.17g p %.17g (se %.17g)\n", m,
      (delta + m) / se, pnorm((delta + m) / se, lower.tail = FALSE), se))
}
# Obuchowski's PET/SPECT thyroid data (clust.bin.pair docs/reference/thyroids.html):
# a = both true negatives, b = PET+ SPECT-, c = PET- SPECT+, d = both -.
# Candidate = PET, reference = SPECT: lost = c, gained = b.
ak <- c(0,2,3,1,2,4,3,2,1,1,2,2,3,2,0,2,2,2,2,1,2)
bk <- c(0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0)
ck <- c(2,1,0,0,1,0,0,0,0,0,0,0,0,0,2,0,0,1,0,0,0)
dk <- c(1,0,0,0,0,0,0,0,0,0,1,0,0,0,0,1,1,0,0,0,0)
clus(ak + bk + ck + dk, ck, bk)
# A made-up set with varied cluster sizes, both directions of change.
clus(c(5, 8, 3, 12, 6, 4, 9, 7), c(2, 1, 0, 4, 1, 0, 3, 2), c(0, 1, 1, 1, 0, 2, 0, 1))
