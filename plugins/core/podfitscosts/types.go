package podfitscosts

// Name is the plugin's name in configuration.
const Name = "PodFitsCosts"
