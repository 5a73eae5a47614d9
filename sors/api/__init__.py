"""The HTTP door's own machinery: the paid unit of work (charges inside each request's
transaction), the OpenAPI document's key detection, the API index and the simulated
platforms' pages."""
