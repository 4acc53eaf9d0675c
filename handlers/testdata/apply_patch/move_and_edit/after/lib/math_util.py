def add(a, b):
    return b + a
