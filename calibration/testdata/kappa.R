# Reference for calibration's TestAgreementKappaR: Cohen's κ and its
# Fleiss–Cohen–Everitt 95% interval for one judge-against-reviewer table.
# Rows: the judge's verdict (supported, absent, contradicted); columns: the
# reviewer's, in the same order. Run: Rscript calibration/testdata/kappa.R
library(psych)
m <- matrix(c(30, 4, 1,
               6, 18, 1,
               1,  2, 5), 3, byrow = TRUE)
ck <- cohen.kappa(m)
options(digits = 15)
print(ck$kappa)
print(ck$var.kappa)
print(ck$confid["unweighted kappa", ])
cat("psych", as.character(packageVersion("psych")), "\n")
