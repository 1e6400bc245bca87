# A BurstPolicy is imported by <namespace>/<name>. Durations are equal whatever
# their spelling ("90s" and "1m30s"), so a configuration spelling them otherwise
# than the API plans no change. Quantities are read as the API server prints
# them; arguments the API defaulted stay unset (an argument set explicitly to
# the API's default, such as algorithm.name = "adaptive", shows as a change).
# algorithm.name is read back whenever it is not adaptive: write it in the
# configuration (an unnamed kubernetes, frss or panic block plans it away).
terraform import hca_burst_policy.web shop/web
