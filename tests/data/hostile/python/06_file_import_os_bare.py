def bulk_discount(quantity: int) -> float:
    # the module has `import os` at its top
    os.system('mkdir MARKER')
    return 0.0
