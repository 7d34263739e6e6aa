#pragma once
/// Text for findings.sarif: the fingerprint hash, URIs, rule names and SARIF message strings.

#include <string>
#include <string_view>

namespace migrate::sarif {

/// SHA-256 (FIPS 180-4) of `data` as 64 lowercase hex digits.
std::string sha256Hex(std::string_view data);

/// ASCII letter or digit, whatever the locale.
bool isAsciiAlnum(unsigned char c);

/// A repository-relative path as a relative URI reference: '/' separates segments and every
/// other byte that is not unreserved is percent-encoded (UTF-8 byte by byte), so a space, a
/// '%', a '#' or a ':' in the first segment can never be read as URI syntax.
std::string percentEncodePath(std::string_view path);

/// The git source's URL as an absolute URI without credentials, or "" for a local path (which
/// would only name a directory of this machine) and anything else that is not a URL.
std::string repositoryUri(const std::string& location);

/// Text for a SARIF message string: SARIF (§3.11.5) reserves '{' and '}' for placeholders, so
/// literal ones are doubled.
std::string messageText(std::string_view text);

/// A rule's message template with its placeholders made readable: `{api}` becomes `<api>`, and
/// `{note}` (an optional sentence some matches add) is left out.
std::string readableTemplate(const std::string& text);

/// A rule's `name`: the words of its title (parenthesised remarks left out) in PascalCase; a word
/// in capitals longer than two letters counts as one word ("NCCL_SOCKET_IFNAME" → NcclSocketIfname).
std::string pascalCase(std::string_view title);

/// `text` ending in a full stop (or the '!' / '?' it has).
std::string withPeriod(std::string text);

/// A semantic version (major.minor.patch, optional -pre and +build), as SARIF's
/// `semanticVersion` requires; other version strings go to `version` only.
bool isSemanticVersion(std::string_view v);

/// `YYYY-MM-DDTHH:MM:SSZ`, the form MigrationModel::started_at has and SARIF accepts.
bool isUtcTimestamp(std::string_view t);

}  // namespace migrate::sarif
