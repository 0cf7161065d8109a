package balancedcostpriority

// Name is the plugin's name in configuration.
const Name = "BalancedCostPriority"
