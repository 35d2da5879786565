from plat import Platform, normalize


def test_normalize():
    assert normalize("linux") == Platform.LINUX
    assert normalize("macos") == Platform.MACOS
    assert normalize("windows") == Platform.WINDOWS
    assert normalize("posix") == Platform.POSIX
    assert normalize("other") == Platform.UNIVERSAL
    assert normalize(None) == Platform.UNIVERSAL
