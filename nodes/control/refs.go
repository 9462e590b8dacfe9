package control

import "github.com/cosimgo/cosim/node"

// The references the blocks' metadata cite.
var (
	refAstromMurray = node.Reference{Key: "AstromMurray2021",
		Text: "Åström, K. J. and Murray, R. M. (2021). Feedback Systems: An Introduction for Scientists and Engineers, 2nd ed. Princeton University Press.",
		Note: "Chapters 6 (linear systems, step and frequency responses), 9 (transfer functions) and 11 (PID control: derivative filter, integrator windup and back-calculation, bumpless parameter changes)."}
	refAstromHagglund = node.Reference{Key: "AstromHagglund2006",
		Text: "Åström, K. J. and Hägglund, T. (2006). Advanced PID Control. ISA.",
		Note: "Chapter 3: derivative filtering, integrator windup and back-calculation with a tracking time constant, and computer implementation with bumpless parameter changes (integrate k_i e rather than k_i ∫e; rebalance the integral state when the proportional gain changes)."}
	refFranklin = node.Reference{Key: "Franklin1998",
		Text: "Franklin, G. F., Powell, J. D. and Workman, M. L. (1998). Digital Control of Dynamic Systems, 3rd ed. Addison-Wesley.",
		Note: "Chapter 4: sampling, the unit delay, and the zero-order-hold equivalent of a continuous system, Φ = e^{AT}, Γ = ∫₀ᵀ e^{As} ds B."}
	refVanLoan = node.Reference{Key: "VanLoan1978",
		Text: "Van Loan, C. F. (1978). Computing integrals involving the matrix exponential. IEEE Transactions on Automatic Control 23(3), 395–404.",
		Note: "Φ and Γ together as blocks of the exponential of one augmented matrix."}
	refGolubVanLoan = node.Reference{Key: "GolubVanLoan2013",
		Text: "Golub, G. H. and Van Loan, C. F. (2013). Matrix Computations, 4th ed. Johns Hopkins University Press.",
		Note: "Section 9.3: the matrix exponential by diagonal Padé approximation of degree 6 with scaling and squaring; the truncation bound 2^{3−2q}(q!)²/((2q)!(2q+1)!) is about 3.4e-16 for q = 6 once the scaled norm is at most 1/2."}
	refHochbruck = node.Reference{Key: "HochbruckOstermann2010",
		Text: "Hochbruck, M. and Ostermann, A. (2010). Exponential integrators. Acta Numerica 19, 209–286.",
		Note: "The exponential Euler method x⁺ = x + Δt φ₁(Δt J) f(x), exact for affine right-hand sides."}
	refKailath = node.Reference{Key: "Kailath1980",
		Text: "Kailath, T. (1980). Linear Systems. Prentice-Hall.",
		Note: "Chapter 2: the controllable (controller) canonical realization of a proper rational transfer function."}
	refSimulink = node.Reference{Key: "Simulink",
		Text: "MathWorks Simulink block reference (Math Operations, Continuous, Discrete, Discontinuities libraries).",
		Note: "Names, parameters and semantics follow the Simulink block of the same name where one exists; differences are listed under Assumptions and Limitations."}
	refDrake = node.Reference{Key: "Drake",
		Text: "Drake systems/primitives (Gain, Adder, MatrixGain, Integrator, Saturation, LinearSystem, ZeroOrderHold, PidController): drake.mit.edu.",
		Note: "The reference set of primitive blocks for a simulation framework."}
)
