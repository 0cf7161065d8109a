package inusepodpriority

// Name is the plugin's name in configuration.
const Name = "InUsePodPriority"
