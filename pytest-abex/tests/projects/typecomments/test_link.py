from link import Link


def test_authority():
    assert Link(u"example.com", 8080, u"user:pass").authority() == u"user:@example.com:8080"
    assert Link(u"example.com").authority() == u"example.com"
