package stats

// Reference tests: every expected number below was computed outside Go,
// by R 4.2 and by statsmodels 0.13.5 (scipy 1.10.1), never copied from
// this package's output. The generators print the table rows:
//
//	Rscript stats/testdata/refgen/reference.R
//	    clopper-pearson (binom.test), wilson and wilson-cc (prop.test),
//	    SampleSizeWald (ceiling(qnorm(...)^2 p(1-p)/h^2))
//	/usr/bin/python3 stats/testdata/refgen/reference.py
//	    wald, agresti-coull, jeffreys (proportion_confint), the two-sample
//	    intervals (confint_proportions_2indep) and z-test (proportions_ztest)
//
// Floats are printed with %.17g and compared to an absolute tolerance of
// refTol. Conventions where our contract and the reference differ:
//
//   - wald and agresti-coull are clipped to [0,1]; statsmodels clips these
//     two methods as well, so its values are used as they are.
//   - jeffreys has lower bound exactly 0 at k = 0 and upper bound exactly 1
//     at k = n; statsmodels returns the Beta quantile there instead. Those
//     rows (loConv / hiConv) compare only the other bound with statsmodels
//     and assert the conventional bound with ==.
//   - wilson-cc is Newcombe's method 4; R's prop.test(correct=TRUE) agrees
//     except at k = n/2, where R shrinks the correction, so k = n/2 is left
//     out of its rows.
//   - two-sample intervals are clipped to [-1,1]; statsmodels does not clip,
//     so reference.py clips its values (the rows where that bites name the
//     unclipped values in src).

import (
	"math"
	"testing"
)

// refTol is the absolute tolerance for agreement with R and statsmodels.
const refTol = 1e-9

type refSingleRateCase struct {
	m      Method
	k, n   int
	conf   float64
	lo, hi float64
	// loConv / hiConv mark a bound fixed by our Jeffreys convention (0 at
	// k = 0, 1 at k = n) rather than taken from the source; it is
	// asserted exactly.
	loConv, hiConv bool
	src            string
}

var refSingleRate = []refSingleRateCase{
	// clopper-pearson: R binom.test
	{m: ClopperPearson, k: 0, n: 1, conf: 0.9, lo: 0, hi: 0.94999999999999996, src: "R binom.test(0, 1, conf.level=0.9)$conf.int"},
	{m: ClopperPearson, k: 1, n: 1, conf: 0.99, lo: 0.0050000000000000044, hi: 1, src: "R binom.test(1, 1, conf.level=0.99)$conf.int"},
	{m: ClopperPearson, k: 0, n: 10, conf: 0.95, lo: 0, hi: 0.30849710781876083, src: "R binom.test(0, 10, conf.level=0.95)$conf.int"},
	{m: ClopperPearson, k: 10, n: 10, conf: 0.95, lo: 0.69150289218123917, hi: 1, src: "R binom.test(10, 10, conf.level=0.95)$conf.int"},
	{m: ClopperPearson, k: 0, n: 50, conf: 0.99, lo: 0, hi: 0.10054508337476264, src: "R binom.test(0, 50, conf.level=0.99)$conf.int"},
	{m: ClopperPearson, k: 50, n: 50, conf: 0.9, lo: 0.94184492088302774, hi: 1, src: "R binom.test(50, 50, conf.level=0.9)$conf.int"},
	{m: ClopperPearson, k: 3, n: 20, conf: 0.9, lo: 0.042169407885778602, hi: 0.3436638043142819, src: "R binom.test(3, 20, conf.level=0.9)$conf.int"},
	{m: ClopperPearson, k: 7, n: 13, conf: 0.99, lo: 0.18870463473557506, hi: 0.86172906094941681, src: "R binom.test(7, 13, conf.level=0.99)$conf.int"},
	{m: ClopperPearson, k: 17, n: 60, conf: 0.95, lo: 0.17450528351437511, hi: 0.41443606894982998, src: "R binom.test(17, 60, conf.level=0.95)$conf.int"},
	{m: ClopperPearson, k: 1, n: 3, conf: 0.95, lo: 0.0084037586596126413, hi: 0.9057006759497539, src: "R binom.test(1, 3, conf.level=0.95)$conf.int"},
	{m: ClopperPearson, k: 2, n: 7, conf: 0.8, lo: 0.078823446160141267, hi: 0.59617972784804407, src: "R binom.test(2, 7, conf.level=0.8)$conf.int"},
	{m: ClopperPearson, k: 5, n: 10, conf: 0.95, lo: 0.18708602844739858, hi: 0.81291397155260148, src: "R binom.test(5, 10, conf.level=0.95)$conf.int"},
	{m: ClopperPearson, k: 166, n: 200, conf: 0.95, lo: 0.77062839960611362, hi: 0.87930437676378259, src: "R binom.test(166, 200, conf.level=0.95)$conf.int"},
	{m: ClopperPearson, k: 3, n: 1000, conf: 0.95, lo: 0.00061909993164957196, hi: 0.0087420232384782803, src: "R binom.test(3, 1000, conf.level=0.95)$conf.int"},
	{m: ClopperPearson, k: 9999, n: 10000, conf: 0.99, lo: 0.99925722588760402, hi: 0.99999949874594329, src: "R binom.test(9999, 10000, conf.level=0.99)$conf.int"},
	{m: ClopperPearson, k: 1, n: 10000, conf: 0.9, lo: 5.1293162837672933e-06, hi: 0.00047429765916543685, src: "R binom.test(1, 10000, conf.level=0.9)$conf.int"},
	// wilson: R prop.test without continuity correction
	{m: Wilson, k: 0, n: 1, conf: 0.9, lo: 0, hi: 0.73013405121594566, src: "R prop.test(0, 1, conf.level=0.9, correct=FALSE)$conf.int"},
	{m: Wilson, k: 1, n: 1, conf: 0.99, lo: 0.1309775432801859, hi: 1, src: "R prop.test(1, 1, conf.level=0.99, correct=FALSE)$conf.int"},
	{m: Wilson, k: 0, n: 10, conf: 0.95, lo: 0, hi: 0.27753279986288915, src: "R prop.test(0, 10, conf.level=0.95, correct=FALSE)$conf.int"},
	{m: Wilson, k: 10, n: 10, conf: 0.95, lo: 0.72246720013711085, hi: 1, src: "R prop.test(10, 10, conf.level=0.95, correct=FALSE)$conf.int"},
	{m: Wilson, k: 0, n: 50, conf: 0.99, lo: 0, hi: 0.11715209171762792, src: "R prop.test(0, 50, conf.level=0.99, correct=FALSE)$conf.int"},
	{m: Wilson, k: 50, n: 50, conf: 0.9, lo: 0.94866681421372978, hi: 1, src: "R prop.test(50, 50, conf.level=0.9, correct=FALSE)$conf.int"},
	{m: Wilson, k: 3, n: 20, conf: 0.9, lo: 0.061582410477368336, hi: 0.32182807567530669, src: "R prop.test(3, 20, conf.level=0.9, correct=FALSE)$conf.int"},
	{m: Wilson, k: 7, n: 13, conf: 0.99, lo: 0.23538312512403473, hi: 0.81554660576886895, src: "R prop.test(7, 13, conf.level=0.99, correct=FALSE)$conf.int"},
	{m: Wilson, k: 17, n: 60, conf: 0.95, lo: 0.18506828428432709, hi: 0.40767285164391176, src: "R prop.test(17, 60, conf.level=0.95, correct=FALSE)$conf.int"},
	{m: Wilson, k: 1, n: 3, conf: 0.95, lo: 0.061491944720396291, hi: 0.79234039919795229, src: "R prop.test(1, 3, conf.level=0.95, correct=FALSE)$conf.int"},
	{m: Wilson, k: 2, n: 7, conf: 0.8, lo: 0.12533599053745423, hi: 0.52753718344340317, src: "R prop.test(2, 7, conf.level=0.8, correct=FALSE)$conf.int"},
	{m: Wilson, k: 5, n: 10, conf: 0.95, lo: 0.23659309051256402, hi: 0.76340690948743595, src: "R prop.test(5, 10, conf.level=0.95, correct=FALSE)$conf.int"},
	{m: Wilson, k: 166, n: 200, conf: 0.95, lo: 0.77184116371687372, hi: 0.87572092087413023, src: "R prop.test(166, 200, conf.level=0.95, correct=FALSE)$conf.int"},
	{m: Wilson, k: 3, n: 1000, conf: 0.95, lo: 0.0010207838811386195, hi: 0.0087830140535031728, src: "R prop.test(3, 1000, conf.level=0.95, correct=FALSE)$conf.int"},
	{m: Wilson, k: 9999, n: 10000, conf: 0.99, lo: 0.99914882353177481, hi: 0.99998825934471192, src: "R prop.test(9999, 10000, conf.level=0.99, correct=FALSE)$conf.int"},
	{m: Wilson, k: 1, n: 10000, conf: 0.9, lo: 2.2309538222766996e-05, hi: 0.00044811753109897084, src: "R prop.test(1, 10000, conf.level=0.9, correct=FALSE)$conf.int"},
	// wilson-cc: R prop.test with continuity correction (k = n/2 left out:
	// there R shrinks the correction to |k - n/2| = 0, Newcombe's method 4 does not)
	{m: WilsonCC, k: 0, n: 1, conf: 0.9, lo: 0, hi: 0.92723940923560222, src: "R prop.test(0, 1, conf.level=0.9, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 1, n: 1, conf: 0.99, lo: 0.03389313008715103, hi: 1, src: "R prop.test(1, 1, conf.level=0.99, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 0, n: 10, conf: 0.95, lo: 0, hi: 0.34453721830692247, src: "R prop.test(0, 10, conf.level=0.95, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 10, n: 10, conf: 0.95, lo: 0.65546278169307748, hi: 1, src: "R prop.test(10, 10, conf.level=0.95, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 0, n: 50, conf: 0.99, lo: 0, hi: 0.13415094950340442, src: "R prop.test(0, 50, conf.level=0.99, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 50, n: 50, conf: 0.9, lo: 0.93106974857196723, hi: 1, src: "R prop.test(50, 50, conf.level=0.9, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 3, n: 20, conf: 0.9, lo: 0.047089061827960098, hi: 0.35048571677892926, src: "R prop.test(3, 20, conf.level=0.9, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 7, n: 13, conf: 0.99, lo: 0.20934836212733474, hi: 0.8392950208980291, src: "R prop.test(7, 13, conf.level=0.99, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 17, n: 60, conf: 0.95, lo: 0.17817536432710135, hi: 0.41640088207979931, src: "R prop.test(17, 60, conf.level=0.95, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 1, n: 3, conf: 0.95, lo: 0.017652794278653499, hi: 0.87466552808973674, src: "R prop.test(1, 3, conf.level=0.95, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 2, n: 7, conf: 0.8, lo: 0.081648456370892297, hi: 0.59492833363830433, src: "R prop.test(2, 7, conf.level=0.8, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 166, n: 200, conf: 0.95, lo: 0.76909651558146452, hi: 0.87787816027457544, src: "R prop.test(166, 200, conf.level=0.95, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 3, n: 1000, conf: 0.95, lo: 0.00077511004074119522, hi: 0.009517839658209723, src: "R prop.test(3, 1000, conf.level=0.95, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 9999, n: 10000, conf: 0.99, lo: 0.99906109744014271, hi: 0.99999671138682911, src: "R prop.test(9999, 10000, conf.level=0.99, correct=TRUE)$conf.int"},
	{m: WilsonCC, k: 1, n: 10000, conf: 0.9, lo: 6.8742076495321547e-06, hi: 0.00052778016616759839, src: "R prop.test(1, 10000, conf.level=0.9, correct=TRUE)$conf.int"},
	// statsmodels 0.13.5+dfsg (scipy 1.10.1) proportion_confint
	// Wald: proportion_confint(method='normal')
	{m: Wald, k: 0, n: 1, conf: 0.9, lo: 0, hi: 0, src: "statsmodels proportion_confint(0, 1, alpha=1-0.9, method='normal')"},
	{m: Wald, k: 1, n: 1, conf: 0.99, lo: 1, hi: 1, src: "statsmodels proportion_confint(1, 1, alpha=1-0.99, method='normal')"},
	{m: Wald, k: 0, n: 10, conf: 0.95, lo: 0, hi: 0, src: "statsmodels proportion_confint(0, 10, alpha=1-0.95, method='normal')"},
	{m: Wald, k: 10, n: 10, conf: 0.95, lo: 1, hi: 1, src: "statsmodels proportion_confint(10, 10, alpha=1-0.95, method='normal')"},
	{m: Wald, k: 0, n: 50, conf: 0.99, lo: 0, hi: 0, src: "statsmodels proportion_confint(0, 50, alpha=1-0.99, method='normal')"},
	{m: Wald, k: 50, n: 50, conf: 0.9, lo: 1, hi: 1, src: "statsmodels proportion_confint(50, 50, alpha=1-0.9, method='normal')"},
	{m: Wald, k: 3, n: 20, conf: 0.9, lo: 0.01866896969924331, hi: 0.28133103030075668, src: "statsmodels proportion_confint(3, 20, alpha=1-0.9, method='normal')"},
	{m: Wald, k: 7, n: 13, conf: 0.99, lo: 0.18231666577250133, hi: 0.8946064111505756, src: "statsmodels proportion_confint(7, 13, alpha=1-0.99, method='normal')"},
	{m: Wald, k: 17, n: 60, conf: 0.95, lo: 0.16931363072454186, hi: 0.39735303594212479, src: "statsmodels proportion_confint(17, 60, alpha=1-0.95, method='normal')"},
	{m: Wald, k: 1, n: 3, conf: 0.95, lo: 0, hi: 0.86676796403947876, src: "statsmodels proportion_confint(1, 3, alpha=1-0.95, method='normal')"},
	{m: Wald, k: 2, n: 7, conf: 0.8, lo: 0.066893272074830312, hi: 0.50453529935374108, src: "statsmodels proportion_confint(2, 7, alpha=1-0.8, method='normal')"},
	{m: Wald, k: 5, n: 10, conf: 0.95, lo: 0.19010248384771922, hi: 0.80989751615228078, src: "statsmodels proportion_confint(5, 10, alpha=1-0.95, method='normal')"},
	{m: Wald, k: 166, n: 200, conf: 0.95, lo: 0.77794090667328419, hi: 0.88205909332671573, src: "statsmodels proportion_confint(166, 200, alpha=1-0.95, method='normal')"},
	{m: Wald, k: 3, n: 1000, conf: 0.95, lo: 0, hi: 0.0063896612415839035, src: "statsmodels proportion_confint(3, 1000, alpha=1-0.95, method='normal')"},
	{m: Wald, k: 9999, n: 10000, conf: 0.99, lo: 0.99964242994911368, hi: 1, src: "statsmodels proportion_confint(9999, 10000, alpha=1-0.99, method='normal')"},
	{m: Wald, k: 1, n: 10000, conf: 0.9, lo: 0, hi: 0.00026447713822139553, src: "statsmodels proportion_confint(1, 10000, alpha=1-0.9, method='normal')"},
	// AgrestiCoull: proportion_confint(method='agresti_coull')
	{m: AgrestiCoull, k: 0, n: 1, conf: 0.9, lo: 0, hi: 0.77645495641506779, src: "statsmodels proportion_confint(0, 1, alpha=1-0.9, method='agresti_coull')"},
	{m: AgrestiCoull, k: 1, n: 1, conf: 0.99, lo: 0.10339725610042877, hi: 1, src: "statsmodels proportion_confint(1, 1, alpha=1-0.99, method='agresti_coull')"},
	{m: AgrestiCoull, k: 0, n: 10, conf: 0.95, lo: 0, hi: 0.32088730575054569, src: "statsmodels proportion_confint(0, 10, alpha=1-0.95, method='agresti_coull')"},
	{m: AgrestiCoull, k: 10, n: 10, conf: 0.95, lo: 0.67911269424945431, hi: 1, src: "statsmodels proportion_confint(10, 10, alpha=1-0.95, method='agresti_coull')"},
	{m: AgrestiCoull, k: 0, n: 50, conf: 0.99, lo: 0, hi: 0.13895228319649272, src: "statsmodels proportion_confint(0, 50, alpha=1-0.99, method='agresti_coull')"},
	{m: AgrestiCoull, k: 50, n: 50, conf: 0.9, lo: 0.93850421490517089, hi: 1, src: "statsmodels proportion_confint(50, 50, alpha=1-0.9, method='agresti_coull')"},
	{m: AgrestiCoull, k: 3, n: 20, conf: 0.9, lo: 0.055822851339592749, hi: 0.32758763481308245, src: "statsmodels proportion_confint(3, 20, alpha=1-0.9, method='agresti_coull')"},
	{m: AgrestiCoull, k: 7, n: 13, conf: 0.99, lo: 0.2351904238863386, hi: 0.81573930700656516, src: "statsmodels proportion_confint(7, 13, alpha=1-0.99, method='agresti_coull')"},
	{m: AgrestiCoull, k: 17, n: 60, conf: 0.95, lo: 0.18435297800465977, hi: 0.40838815792357919, src: "statsmodels proportion_confint(17, 60, alpha=1-0.95, method='agresti_coull')"},
	{m: AgrestiCoull, k: 1, n: 3, conf: 0.95, lo: 0.056274614375314835, hi: 0.79755772954303361, src: "statsmodels proportion_confint(1, 3, alpha=1-0.95, method='agresti_coull')"},
	{m: AgrestiCoull, k: 2, n: 7, conf: 0.8, lo: 0.12202373128311073, hi: 0.53084944269774659, src: "statsmodels proportion_confint(2, 7, alpha=1-0.8, method='agresti_coull')"},
	{m: AgrestiCoull, k: 5, n: 10, conf: 0.95, lo: 0.236593090512564, hi: 0.76340690948743606, src: "statsmodels proportion_confint(5, 10, alpha=1-0.95, method='agresti_coull')"},
	{m: AgrestiCoull, k: 166, n: 200, conf: 0.95, lo: 0.77147714597315387, hi: 0.87608493861785008, src: "statsmodels proportion_confint(166, 200, alpha=1-0.95, method='agresti_coull')"},
	{m: AgrestiCoull, k: 3, n: 1000, conf: 0.95, lo: 0.00058143235270898073, hi: 0.0092223655819328107, src: "statsmodels proportion_confint(3, 1000, alpha=1-0.95, method='agresti_coull')"},
	{m: AgrestiCoull, k: 9999, n: 10000, conf: 0.99, lo: 0.99903379378433554, hi: 1, src: "statsmodels proportion_confint(9999, 10000, alpha=1-0.99, method='agresti_coull')"},
	{m: AgrestiCoull, k: 1, n: 10000, conf: 0.9, lo: 0, hi: 0.00048741556980096872, src: "statsmodels proportion_confint(1, 10000, alpha=1-0.9, method='agresti_coull')"},
	// Jeffreys: proportion_confint(method='jeffreys')
	{m: Jeffreys, k: 0, n: 1, conf: 0.9, lo: 0, hi: 0.77148018619367109, loConv: true, src: "statsmodels proportion_confint(0, 1, alpha=1-0.9, method='jeffreys')[1]; lower 0 by convention"},
	{m: Jeffreys, k: 1, n: 1, conf: 0.99, lo: 0.051236545575435333, hi: 1, hiConv: true, src: "statsmodels proportion_confint(1, 1, alpha=1-0.99, method='jeffreys')[0]; upper 1 by convention"},
	{m: Jeffreys, k: 0, n: 10, conf: 0.95, lo: 0, hi: 0.21719626750921053, loConv: true, src: "statsmodels proportion_confint(0, 10, alpha=1-0.95, method='jeffreys')[1]; lower 0 by convention"},
	{m: Jeffreys, k: 10, n: 10, conf: 0.95, lo: 0.78280373249078949, hi: 1, hiConv: true, src: "statsmodels proportion_confint(10, 10, alpha=1-0.95, method='jeffreys')[0]; upper 1 by convention"},
	{m: Jeffreys, k: 0, n: 50, conf: 0.99, lo: 0, hi: 0.075404427316284328, loConv: true, src: "statsmodels proportion_confint(0, 50, alpha=1-0.99, method='jeffreys')[1]; lower 0 by convention"},
	{m: Jeffreys, k: 50, n: 50, conf: 0.9, lo: 0.96249886485996294, hi: 1, hiConv: true, src: "statsmodels proportion_confint(50, 50, alpha=1-0.9, method='jeffreys')[0]; upper 1 by convention"},
	{m: Jeffreys, k: 3, n: 20, conf: 0.9, lo: 0.056248054290418806, hi: 0.31368035743571937, src: "statsmodels proportion_confint(3, 20, alpha=1-0.9, method='jeffreys')"},
	{m: Jeffreys, k: 7, n: 13, conf: 0.99, lo: 0.21627206893525602, hi: 0.83729613460806751, src: "statsmodels proportion_confint(7, 13, alpha=1-0.99, method='jeffreys')"},
	{m: Jeffreys, k: 17, n: 60, conf: 0.95, lo: 0.1814555735799879, hi: 0.40554610013817388, src: "statsmodels proportion_confint(17, 60, alpha=1-0.95, method='jeffreys')"},
	{m: Jeffreys, k: 1, n: 3, conf: 0.95, lo: 0.038747617785165188, hi: 0.82326390286874263, src: "statsmodels proportion_confint(1, 3, alpha=1-0.95, method='jeffreys')"},
	{m: Jeffreys, k: 2, n: 7, conf: 0.8, lo: 0.12166084706241669, hi: 0.52700219174866647, src: "statsmodels proportion_confint(2, 7, alpha=1-0.8, method='jeffreys')"},
	{m: Jeffreys, k: 5, n: 10, conf: 0.95, lo: 0.22352867025270523, hi: 0.77647132974729471, src: "statsmodels proportion_confint(5, 10, alpha=1-0.95, method='jeffreys')"},
	{m: Jeffreys, k: 166, n: 200, conf: 0.95, lo: 0.77339046176841986, hi: 0.87714198294278056, src: "statsmodels proportion_confint(166, 200, alpha=1-0.95, method='jeffreys')"},
	{m: Jeffreys, k: 3, n: 1000, conf: 0.95, lo: 0.00084563480182983479, hi: 0.0079843673584034415, src: "statsmodels proportion_confint(3, 1000, alpha=1-0.95, method='jeffreys')"},
	{m: Jeffreys, k: 9999, n: 10000, conf: 0.99, lo: 0.99935828211643074, hi: 0.99999641382804461, src: "statsmodels proportion_confint(9999, 10000, alpha=1-0.99, method='jeffreys')"},
	{m: Jeffreys, k: 1, n: 10000, conf: 0.9, lo: 1.7592600964545048e-05, hi: 0.00039066983299818536, src: "statsmodels proportion_confint(1, 10000, alpha=1-0.9, method='jeffreys')"},
}

func refClose(got, want float64) bool { return math.Abs(got-want) <= refTol }

func TestReferenceSingleRate(t *testing.T) {
	count := map[Method]int{}
	for _, c := range refSingleRate {
		count[c.m]++
		iv, err := Proportion{K: c.k, N: c.n}.Interval(c.m, c.conf)
		if err != nil {
			t.Errorf("%s k=%d n=%d conf=%v: unexpected error %v (source %s)", c.m, c.k, c.n, c.conf, err, c.src)
			continue
		}
		if iv.Method != string(c.m) {
			t.Errorf("%s k=%d n=%d conf=%v: Method = %q", c.m, c.k, c.n, c.conf, iv.Method)
		}
		check := func(bound string, got, want float64, exact bool) {
			if exact {
				if got != want {
					t.Errorf("%s k=%d n=%d conf=%v: %s got %.17g, want exactly %v by convention (source %s)",
						c.m, c.k, c.n, c.conf, bound, got, want, c.src)
				}
				return
			}
			if !refClose(got, want) {
				t.Errorf("%s k=%d n=%d conf=%v: %s got %.17g, want %.17g (|diff| %.3g > %g; source %s)",
					c.m, c.k, c.n, c.conf, bound, got, want, math.Abs(got-want), refTol, c.src)
			}
		}
		check("lower", iv.Lower, c.lo, c.loConv)
		check("upper", iv.Upper, c.hi, c.hiConv)
	}
	for _, m := range Methods {
		if count[m] < 10 {
			t.Errorf("%s: only %d reference cases, want at least 10", m, count[m])
		}
	}
}

type refCompareCase struct {
	k1, n1, k2, n2 int
	conf           float64
	diff, se       float64
	// zDefined is false where the pooled rate is 0 or 1 (statsmodels'
	// proportions_ztest returns nan there); z and p are then unchecked.
	zDefined                     bool
	z, p                         float64
	newcombe, wald, agrestiCaffo [2]float64
	src                          string
}

var refCompare = []refCompareCase{
	// statsmodels 0.13.5+dfsg confint_proportions_2indep(compare="diff") and proportions_ztest;
	// (intervals clipped to [-1, 1] here: statsmodels does not clip); diff and se
	// from the definitions in Python, se checked against statsmodels' wald half-width
	{k1: 168, n1: 200, k2: 166, n2: 200, conf: 0.95,
		diff: 0.010000000000000009, se: 0.037114687119791274, zDefined: true, z: 0.26941066888720711, p: 0.78761367699941442,
		newcombe: [2]float64{-0.063181024776106015, 0.083124782718168977}, wald: [2]float64{-0.062743450052263519, 0.082743450052263537}, agrestiCaffo: [2]float64{-0.063060234513172886, 0.082862214711192705},
		src: "statsmodels confint_proportions_2indep(168, 200, 166, 200, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.95), proportions_ztest([168, 166], [200, 200])"},
	{k1: 166, n1: 200, k2: 150, n2: 200, conf: 0.95,
		diff: 0.07999999999999996, se: 0.040533936399022488, zDefined: true, z: 1.9641144645609443, p: 0.049516819153199221,
		newcombe: [2]float64{9.5499328715692444e-06, 0.15893139245246835}, wald: [2]float64{0.00055494450627871506, 0.15944505549372121}, agrestiCaffo: [2]float64{-0.00024805626746181308, 0.15866389785162016},
		src: "statsmodels confint_proportions_2indep(166, 200, 150, 200, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.95), proportions_ztest([166, 150], [200, 200])"},
	{k1: 45, n1: 50, k2: 30, n2: 60, conf: 0.9,
		diff: 0.40000000000000002, se: 0.07724420150837645, zDefined: true, z: 4.4848952846511052, p: 7.2949751422846322e-06,
		newcombe: [2]float64{0.26155934070741127, 0.51547301853288718}, wald: [2]float64{0.27294459498797657, 0.52705540501202353}, agrestiCaffo: [2]float64{0.25725694802195254, 0.51197382120881663},
		src: "statsmodels confint_proportions_2indep(45, 50, 30, 60, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.9), proportions_ztest([45, 30], [50, 60])"},
	{k1: 12, n1: 30, k2: 18, n2: 30, conf: 0.9,
		diff: -0.19999999999999996, se: 0.12649110640673517, zDefined: true, z: -1.5491933384829666, p: 0.12133525035848222,
		newcombe: [2]float64{-0.38791197307272118, 0.011309940770410559}, wald: [2]float64{-0.40805935515022296, 0.0080593551502230742}, agrestiCaffo: [2]float64{-0.38946018682672079, 0.014460186826720761},
		src: "statsmodels confint_proportions_2indep(12, 30, 18, 30, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.9), proportions_ztest([12, 18], [30, 30])"},
	{k1: 3, n1: 1000, k2: 9, n2: 1000, conf: 0.99,
		diff: -0.0059999999999999993, se: 0.0034510867853474797, zDefined: true, z: -1.7372704602080438, p: 0.082339443060622908,
		newcombe: [2]float64{-0.017773933586279472, 0.0041584102736072744}, wald: [2]float64{-0.01488941047078841, 0.0028894104707884128}, agrestiCaffo: [2]float64{-0.015566805783539708, 0.0035907578793480908},
		src: "statsmodels confint_proportions_2indep(3, 1000, 9, 1000, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.99), proportions_ztest([3, 9], [1000, 1000])"},
	{k1: 500, n1: 1000, k2: 480, n2: 1000, conf: 0.95,
		diff: 0.020000000000000018, se: 0.022351733713517615, zDefined: true, z: 0.89460613012164303, p: 0.37099767373660797,
		newcombe: [2]float64{-0.023778887683289583, 0.063670693863384004}, wald: [2]float64{-0.023808593070524228, 0.063808593070524264}, agrestiCaffo: [2]float64{-0.023804840110781808, 0.063724999791420475},
		src: "statsmodels confint_proportions_2indep(500, 1000, 480, 1000, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.95), proportions_ztest([500, 480], [1000, 1000])"},
	{k1: 9999, n1: 10000, k2: 9990, n2: 10000, conf: 0.95,
		diff: 0.0009000000000000119, se: 0.00033151018083913954, zDefined: true, z: 2.7143486497430067, p: 0.006640623650929196,
		newcombe: [2]float64{0.00024731755438526127, 0.0017439713597947317}, wald: [2]float64{0.00025025198504693806, 0.0015497480149530857}, agrestiCaffo: [2]float64{0.00019362597174142821, 0.0016060141002443137},
		src: "statsmodels confint_proportions_2indep(9999, 10000, 9990, 10000, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.95), proportions_ztest([9999, 9990], [10000, 10000])"},
	{k1: 0, n1: 20, k2: 5, n2: 25, conf: 0.95,
		diff: -0.20000000000000001, se: 0.080000000000000002, zDefined: true, z: -2.1213203435596428, p: 0.033894853524689246,
		newcombe: [2]float64{-0.39130950369540329, -0.0041174486853518821}, wald: [2]float64{-0.3567971187632043, -0.043202881236795693}, agrestiCaffo: [2]float64{-0.35611953074165442, 0.0025841772063009416},
		src: "statsmodels confint_proportions_2indep(0, 20, 5, 25, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.95), proportions_ztest([0, 5], [20, 25])"},
	{k1: 20, n1: 20, k2: 15, n2: 20, conf: 0.95,
		diff: 0.25, se: 0.096824583655185426, zDefined: true, z: 2.3904572186687871, p: 0.01682740948275685,
		newcombe: [2]float64{0.03776544556663039, 0.46870087761874402}, wald: [2]float64{0.060227303217750994, 0.43977269678224901}, agrestiCaffo: [2]float64{0.021822322771468866, 0.43272313177398569},
		src: "statsmodels confint_proportions_2indep(20, 20, 15, 20, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.95), proportions_ztest([20, 15], [20, 20])"},
	{k1: 7, n1: 9, k2: 2, n2: 11, conf: 0.99,
		diff: 0.59595959595959602, se: 0.18090897156025276, zDefined: true, z: 2.6652123368179317, p: 0.0076939725275429671,
		newcombe: [2]float64{0.031260254068158022, 0.82542038395185646}, wald: [2]float64{0.12996896573980232, 1}, agrestiCaffo: [2]float64{0.037987507863179393, 0.95501948514381363},
		src: "statsmodels confint_proportions_2indep(7, 9, 2, 11, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.99), proportions_ztest([7, 2], [9, 11]); clipped: wald 0.12996896573980232..1.0619502261793898"},
	{k1: 1, n1: 1, k2: 0, n2: 1, conf: 0.9,
		diff: 1, se: 0, zDefined: true, z: 1.4142135623730949, p: 0.15729920705028516,
		newcombe: [2]float64{-0.032565477580002833, 1}, wald: [2]float64{1, 1}, agrestiCaffo: [2]float64{-0.2997711228653101, 0.96643778953197668},
		src: "statsmodels confint_proportions_2indep(1, 1, 0, 1, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.9), proportions_ztest([1, 0], [1, 1])"},
	{k1: 10, n1: 10, k2: 0, n2: 10, conf: 0.99,
		diff: 1, se: 0, zDefined: true, z: 4.4721359549995796, p: 7.7442164310440706e-06,
		newcombe: [2]float64{0.43593513184017507, 1}, wald: [2]float64{1, 1}, agrestiCaffo: [2]float64{0.54269255297475039, 1},
		src: "statsmodels confint_proportions_2indep(10, 10, 0, 10, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.99), proportions_ztest([10, 0], [10, 10]); clipped: ac 0.54269255297475039..1.1239741136919161"},
	{k1: 0, n1: 10, k2: 0, n2: 20, conf: 0.95,
		diff: 0, se: 0, zDefined: false,
		newcombe: [2]float64{-0.16112515805281938, 0.2775327998628892}, wald: [2]float64{0, 0}, agrestiCaffo: [2]float64{-0.1410900954501422, 0.21684767120771795},
		src: "statsmodels confint_proportions_2indep(0, 10, 0, 20, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.95), proportions_ztest([0, 0], [10, 20])"},
	{k1: 30, n1: 30, k2: 25, n2: 25, conf: 0.95,
		diff: 0, se: 0, zDefined: false,
		newcombe: [2]float64{-0.1135133931739688, 0.13319225093904852}, wald: [2]float64{0, 0}, agrestiCaffo: [2]float64{-0.087532398882291557, 0.099106472956365738},
		src: "statsmodels confint_proportions_2indep(30, 30, 25, 25, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-0.95), proportions_ztest([30, 25], [30, 25])"},
}

func TestReferenceCompare(t *testing.T) {
	if len(refCompare) < 10 {
		t.Errorf("only %d two-sample reference cases, want at least 10", len(refCompare))
	}
	for _, c := range refCompare {
		a, b := Proportion{K: c.k1, N: c.n1}, Proportion{K: c.k2, N: c.n2}
		cmp, err := Compare(a, b, c.conf)
		if err != nil {
			t.Errorf("compare %v vs %v conf=%v: unexpected error %v (source %s)", a, b, c.conf, err, c.src)
			continue
		}
		check := func(what string, got, want float64) {
			if !refClose(got, want) {
				t.Errorf("compare %v vs %v conf=%v: %s got %.17g, want %.17g (|diff| %.3g > %g; source %s)",
					a, b, c.conf, what, got, want, math.Abs(got-want), refTol, c.src)
			}
		}
		check("Difference", cmp.Difference, c.diff)
		check("StandardError", cmp.StandardError, c.se)
		if cmp.ZDefined != c.zDefined {
			t.Errorf("compare %v vs %v conf=%v: ZDefined got %v, want %v (source %s)", a, b, c.conf, cmp.ZDefined, c.zDefined, c.src)
		} else if c.zDefined {
			check("Z", cmp.Z, c.z)
			check("PValue", cmp.PValue, c.p)
		}
		for _, d := range []struct {
			m    DiffMethod
			want [2]float64
		}{{DiffNewcombe, c.newcombe}, {DiffWald, c.wald}, {DiffAgrestiCaffo, c.agrestiCaffo}} {
			iv, ok := cmp.Interval(d.m)
			if !ok {
				t.Errorf("compare %v vs %v conf=%v: no %s interval", a, b, c.conf, d.m)
				continue
			}
			check(string(d.m)+" lower", iv.Lower, d.want[0])
			check(string(d.m)+" upper", iv.Upper, d.want[1])
		}
	}
}

type refSampleSizeCase struct {
	rate, h, conf float64
	want          int
	src           string
}

// refSampleSizeWald: R max(1, ceiling(qnorm(1-alpha/2)^2 p(1-p)/h^2)), the
// unrounded value in src.
var refSampleSizeWald = []refSampleSizeCase{
	{rate: 0.5, h: 0.05, conf: 0.95, want: 385, src: "R max(1, ceiling(qnorm(1-(1-0.95)/2)^2*0.5*(1-0.5)/0.05^2)) = max(1, ceiling(384.14588206941227))"},
	{rate: 0.5, h: 0.03, conf: 0.95, want: 1068, src: "R max(1, ceiling(qnorm(1-(1-0.95)/2)^2*0.5*(1-0.5)/0.03^2)) = max(1, ceiling(1067.0718946372565))"},
	{rate: 0.1, h: 0.02, conf: 0.9, want: 609, src: "R max(1, ceiling(qnorm(1-(1-0.9)/2)^2*0.1*(1-0.1)/0.02^2)) = max(1, ceiling(608.74727717146743))"},
	{rate: 0.8, h: 0.01, conf: 0.99, want: 10616, src: "R max(1, ceiling(qnorm(1-(1-0.99)/2)^2*0.8*(1-0.8)/0.01^2)) = max(1, ceiling(10615.834561633936))"},
	{rate: 0.03, h: 0.005, conf: 0.95, want: 4472, src: "R max(1, ceiling(qnorm(1-(1-0.95)/2)^2*0.03*(1-0.03)/0.005^2)) = max(1, ceiling(4471.4580672879592))"},
	{rate: 0.9, h: 0.1, conf: 0.8, want: 15, src: "R max(1, ceiling(qnorm(1-(1-0.8)/2)^2*0.9*(1-0.9)/0.1^2)) = max(1, ceiling(14.781369736348349))"},
	{rate: 0.25, h: 0.2, conf: 0.95, want: 19, src: "R max(1, ceiling(qnorm(1-(1-0.95)/2)^2*0.25*(1-0.25)/0.2^2)) = max(1, ceiling(18.006838222003701))"},
	{rate: 0, h: 0.05, conf: 0.95, want: 1, src: "R max(1, ceiling(qnorm(1-(1-0.95)/2)^2*0*(1-0)/0.05^2)) = max(1, ceiling(0))"},
}

func TestReferenceSampleSizeWald(t *testing.T) {
	for _, c := range refSampleSizeWald {
		got, err := SampleSizeWald(c.rate, c.h, c.conf)
		if err != nil {
			t.Errorf("SampleSizeWald(%v, %v, %v): unexpected error %v (source %s)", c.rate, c.h, c.conf, err, c.src)
			continue
		}
		if got != c.want {
			t.Errorf("SampleSizeWald(%v, %v, %v) = %d, want %d (source %s)", c.rate, c.h, c.conf, got, c.want, c.src)
		}
	}
}
