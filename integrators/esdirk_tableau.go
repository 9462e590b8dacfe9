package integrators

// esdirkTableau is an explicit-first-stage, singly diagonally implicit
// Runge–Kutta pair (ESDIRK) with an embedded method:
//
//	z_1 = y_n,  k_1 = f(t_n, y_n)
//	z_i = y_n + h·Σ_{j<i} a_ij·k_j + h·γ·k_i,  k_i = f(t_n + c_i·h, z_i)   (i = 2..s)
//	y_{n+1} = y_n + h·Σ b_i·k_i,   ŷ_{n+1} = y_n + h·Σ b̂_i·k_i
//
// Both pairs here are stiffly accurate (b = the last row of A, so
// y_{n+1} = z_s) and L-stable, and their first stage is explicit, so a
// step solves s − 1 nonlinear systems with the same matrix I − γh·J.
// Arrays are sized for the largest pair (6 stages); d = b − b̂ are the
// coefficients of the error estimate.
type esdirkTableau struct {
	name     string
	order    int // of b
	embOrder int // of b̂
	s        int
	gamma    float64
	a        [6][6]float64
	b, d, c  [6]float64
}

// esdirk43 is ESDIRK4(3)6L[2]SA of Kennedy & Carpenter, "Additive
// Runge–Kutta schemes for convection–diffusion–reaction equations",
// Applied Numerical Mathematics 44 (2003) 139–181: the implicit tableau
// of their ARK4(3)6L[2]SA (SUNDIALS' ARKODE ships the same numbers as
// ARK436L2SA_DIRK_6_3_4): fourth order with a third-order embedded
// method, six stages (five implicit), γ = 1/4, L-stable, stiffly
// accurate, stage order 2. The rational coefficients are the paper's;
// TestESDIRKOrderConditions checks them against the order conditions.
var esdirk43 = func() *esdirkTableau {
	t := &esdirkTableau{name: MethodESDIRK43, order: 4, embOrder: 3, s: 6, gamma: 1.0 / 4}
	t.c = [6]float64{0, 1.0 / 2, 83.0 / 250, 31.0 / 50, 17.0 / 20, 1}
	t.a[1] = [6]float64{1.0 / 4, 1.0 / 4}
	t.a[2] = [6]float64{8611.0 / 62500, -1743.0 / 31250, 1.0 / 4}
	t.a[3] = [6]float64{5012029.0 / 34652500, -654441.0 / 2922500, 174375.0 / 388108, 1.0 / 4}
	t.a[4] = [6]float64{15267082809.0 / 155376265600, -71443401.0 / 120774400, 730878875.0 / 902184768, 2285395.0 / 8070912, 1.0 / 4}
	t.a[5] = [6]float64{82889.0 / 524892, 0, 15625.0 / 83664, 69875.0 / 102672, -2260.0 / 8211, 1.0 / 4}
	t.b = t.a[5]
	bhat := [6]float64{4586570599.0 / 29645900160, 0, 178811875.0 / 945068544, 814220225.0 / 1159782912, -3700637.0 / 11593932, 61727.0 / 225920}
	for i := range t.d {
		t.d[i] = t.b[i] - bhat[i]
	}
	return t
}()

// esdirk32 is ESDIRK3(2)4L[2]SA, the implicit part of ARK3(2)4L[2]SA of
// the same paper (ARKODE's ARK324L2SA_DIRK_4_2_3): third order with a
// second-order embedded method, four stages (three implicit),
// γ ≈ 0.4358665215 (the γ of Alexander's L-stable three-stage SDIRK,
// a root of 6γ³ − 18γ² + 9γ − 1), L-stable, stiffly accurate, stage
// order 2.
var esdirk32 = func() *esdirkTableau {
	const g = 1767732205903.0 / 4055673282236
	t := &esdirkTableau{name: MethodESDIRK32, order: 3, embOrder: 2, s: 4, gamma: g}
	t.c = [6]float64{0, 1767732205903.0 / 2027836641118, 3.0 / 5, 1}
	t.a[1] = [6]float64{g, g}
	t.a[2] = [6]float64{2746238789719.0 / 10658868560708, -640167445237.0 / 6845629431997, g}
	t.a[3] = [6]float64{1471266399579.0 / 7840856788654, -4482444167858.0 / 7529755066697, 11266239266428.0 / 11593286722821, g}
	t.b = t.a[3]
	bhat := [6]float64{2756255671327.0 / 12835298489170, -10771552573575.0 / 22201958757719, 9247589265047.0 / 10645013368117, 2193209047091.0 / 5459859503100}
	for i := 0; i < t.s; i++ {
		t.d[i] = t.b[i] - bhat[i]
	}
	return t
}()
