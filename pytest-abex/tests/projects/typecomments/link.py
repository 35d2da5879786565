"""hyperlink 21.0.0's shape: code that runs on Python 2 too, typed in PEP 484 comments. The
constructor checks its arguments' types, so a `Link` built from anything fails there."""

from typing import Optional, Text


def _check(name, value, *types):
    if not isinstance(value, types):
        raise TypeError("expected %s for %s, got %r" % (types, name, value))
    return value


class Link(object):
    def __init__(
        self,
        host=u"",  # type: Text
        port=None,  # type: Optional[int]
        userinfo=u"",  # type: Text
        scheme=u"http",  # type: Text
        rooted=False,  # type: bool
        fragment=u"",  # type: Text
    ):
        # type: (...) -> None
        self.host = _check("host", host, str)
        self.port = _check("port", port, int, type(None))
        self.userinfo = _check("userinfo", userinfo, str)
        self.scheme = _check("scheme", scheme, str)
        self.rooted = _check("rooted", rooted, bool)
        self.fragment = _check("fragment", fragment, str)

    def authority(self, with_password=False):
        # type: (bool) -> Text
        """The user information, host and port: `user:@host:8080`."""
        userinfo = self.userinfo
        if not with_password and u":" in userinfo:
            userinfo = userinfo[: userinfo.index(u":") + 1]
        hostport = self.host if self.port is None else u"%s:%d" % (self.host, self.port)
        return u"@".join([userinfo, hostport]) if userinfo else hostport
