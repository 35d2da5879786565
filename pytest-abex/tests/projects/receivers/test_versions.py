from versions import Version


def test_truncate():
    assert repr(Version("1.2.3").truncate()) == "Version('1.2.3')"
    assert repr(Version("4.5.6", build="b7").truncate("patch")) == "Version('4.5.6')"
    assert repr(Version("2.1", partial=True).truncate()) == "Version('2.1', partial)"
