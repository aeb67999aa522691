"""Shape optimization through the surrogate (CMA-ES, gradient search), constraints, CFD
verification of the best candidates and active learning. Filled by the optimization issue."""
