options(digits=10)
# one-sided (candidate worse: lost > gained) exact conditional and mid-p McNemar p-values
p_exact <- function(L, G) { D <- L + G; if (D == 0) 1 else pbinom(L - 1, D, 0.5, lower.tail=FALSE) }            # P(X >= L)
p_midp  <- function(L, G) { D <- L + G; if (D == 0) 1 else pbinom(L, D, 0.5, lower.tail=FALSE) + 0.5*dbinom(L, D, 0.5) }
# power under trinomial(n; pL, pG, 1-pL-pG), full enumeration
power_enum <- function(n, pL, pG, rule) { s <- 0
  for (L in 0:n) for (G in 0:(n-L)) if (rule(L,G)) s <- s + exp(lfactorial(n)-lfactorial(L)-lfactorial(G)-lfactorial(n-L-G) + L*log(pL) + G*log(pG) + (n-L-G)*log1p(-pL-pG))
  s }
# conditional-on-D (SAS PROC POWER DIST=EXACT_COND style): sum_D P(D) * P(reject | D)
power_cond <- function(n, pL, pG, alpha, midp=FALSE) { pd <- pL + pG; th <- pL/pd; s <- 0
  for (D in 0:n) { rej <- 0; for (L in 0:D) { p <- if (midp) p_midp(L, D-L) else p_exact(L, D-L); if (p <= alpha) rej <- rej + dbinom(L, D, th) }
    s <- s + dbinom(D, n, pd)*rej }
  s }
connor_n <- function(pL, pG, alpha=0.05, power=0.8, sides=2) { pd <- pL+pG; dl <- pL-pG
  ((qnorm(1-alpha/sides)*sqrt(pd) + qnorm(power)*sqrt(pd - dl^2))/dl)^2 }
connor_power <- function(n, pL, pG, alpha=0.05, sides=1) { pd <- pL+pG; dl <- abs(pL-pG); pnorm((dl*sqrt(n) - qnorm(1-alpha/sides)*sqrt(pd))/sqrt(pd - dl^2)) }
cat(sprintf("Connor n (p10=.05, p01=.45, two-sided a=.05, power .80) = %.4f -> ceiling %d\n", connor_n(.45,.05), ceiling(connor_n(.45,.05))))
cat(sprintf("Connor n (one-sided a=.05, power .90) = %.4f -> %d\n", connor_n(.45,.05,power=.9,sides=1), ceiling(connor_n(.45,.05,power=.9,sides=1))))
for (cfg in list(c(40, .07, .04), c(80, .10, .05), c(100, .15, .05))) { n <- cfg[1]; pL <- cfg[2]; pG <- cfg[3]
  e1 <- power_enum(n, pL, pG, function(L,G) p_exact(L,G) <= 0.05); e2 <- power_cond(n, pL, pG, 0.05)
  m1 <- power_enum(n, pL, pG, function(L,G) p_midp(L,G) <= 0.05); m2 <- power_cond(n, pL, pG, 0.05, TRUE)
  cr <- power_enum(n, pL, pG, function(L,G) L - G >= 2)
  cat(sprintf("n=%d pL=%.2f pG=%.2f: exact-cond one-sided a=.05 power enum=%.8f cond=%.8f | mid-p enum=%.8f cond=%.8f | count rule L-G>=2: %.8f | Connor approx (1-sided) %.6f\n",
      n, pL, pG, e1, e2, m1, m2, cr, connor_power(n, pL, pG))) }
# size under H0 (pL = pG) of the count rule and the tests, for the issue's discordance
for (D in c(19, 11, 22, 7)) cat(sprintf("D=%d fixed: P(L-G>=2 | D, H0) = %.6f ; P(L-G>=1) = %.6f\n", D, pbinom(ceiling((D+2)/2)-1, D, .5, lower.tail=FALSE), pbinom(ceiling((D+1)/2)-1, D, .5, lower.tail=FALSE)))
pp <- sapply(c(19,11,22,7), function(D) pbinom(ceiling((D+2)/2)-1, D, .5, lower.tail=FALSE)); cat(sprintf("any of 4 classes blocks (independent, D fixed): %.6f\n", 1-prod(1-pp)))
