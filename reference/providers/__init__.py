"""Model providers for the reference runtimes. Every model is a provider object; none uses the network."""
