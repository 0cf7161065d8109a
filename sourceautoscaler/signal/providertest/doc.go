// Package providertest holds the checks every signal provider's tests
// make the same way: a Fetch that must succeed, and a round that must
// fail as a whole (every sample unknown) and return soon after its
// context ends.
package providertest
