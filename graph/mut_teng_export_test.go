package graph

// MutTengSumBlock is sumBlock (family.go), the rows of one kernel call
// of the phased and stage paths, for mut_teng_test.go's call tiling.
const MutTengSumBlock = sumBlock
