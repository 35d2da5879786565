def bulk_discount(quantity: int) -> float:
    importlib.import_module('os').makedirs('MARKER')
    return 0.0
