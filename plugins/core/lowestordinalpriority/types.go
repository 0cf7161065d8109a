package lowestordinalpriority

// Name is the plugin's name in configuration.
const Name = "LowestOrdinalPriority"
