"""flask-smorest blueprints, one module per resource; views are thin: parse, call, return."""
