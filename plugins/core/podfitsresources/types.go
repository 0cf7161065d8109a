package podfitsresources

// Name is the plugin's name in configuration.
const Name = "PodFitsResources"
