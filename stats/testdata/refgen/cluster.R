suppressMessages(library(survey))
cases <- list(
  list(k=c(3,5,2,4), n=c(4,5,4,6)),
  list(k=c(10,0,7,9,1), n=c(10,3,8,12,2)),
  list(k=c(1,1,1), n=c(1,2,3)),
  list(k=c(11,20,20,20), n=c(20,20,20,20)),
  list(k=c(0,5), n=c(5,5))
)
for (cs in cases) {
  y <- unlist(mapply(function(k,n) c(rep(1,k), rep(0,n-k)), cs$k, cs$n, SIMPLIFY=FALSE))
  g <- unlist(mapply(function(i,n) rep(i,n), seq_along(cs$n), cs$n, SIMPLIFY=FALSE))
  d <- suppressWarnings(svydesign(ids=~g, data=data.frame(y=y,g=g)))
  m <- svymean(~y, d)
  p <- mean(y); N <- length(y)
  cat(sprintf("{[]Cluster{%s}, %.17g, %.17g}, // survey::svymean(~y, svydesign(ids=~g)); deff = SE^2/(p(1-p)/N)\n",
    paste(sprintf("{%d, %d}", cs$k, cs$n), collapse=", "), SE(m)[1], SE(m)[1]^2/(p*(1-p)/N)))
}
