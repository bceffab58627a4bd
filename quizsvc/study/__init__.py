"""The use cases: what a learner, an author or an operator asks of the service."""
