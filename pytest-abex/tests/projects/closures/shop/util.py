"""Project decorators without `functools.wraps`: the wrapper closes over the function."""


def logged(func):
    seen = []

    def inner(*args, **kwargs):
        seen.append(args)
        return func(*args, **kwargs)

    return inner


def retry(times):
    def deco(func):
        def attempt(*args, **kwargs):
            for _ in range(times - 1):
                try:
                    return func(*args, **kwargs)
                except ConnectionError:
                    pass
            return func(*args, **kwargs)

        return attempt

    return deco
