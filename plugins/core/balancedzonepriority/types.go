package balancedzonepriority

// Name is the plugin's name in configuration.
const Name = "BalancedZonePriority"
