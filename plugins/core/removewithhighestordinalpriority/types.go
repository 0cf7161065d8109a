package removewithhighestordinalpriority

// Name is the plugin's name in configuration.
const Name = "RemoveWithHighestOrdinalPriority"

// Alias is the seed design's other spelling of Name, accepted in
// configuration.
const Alias = "HighestOrdinalPriority"
