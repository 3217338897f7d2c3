"""Secrets given to commands that no rule read (a probe of 34 everyday command lines on
2026-11-29 found nine kept): a heredoc's lines given to a secrets command, `npm config set`
of an auth token, `htpasswd -b`, `openssl enc -k`, Java's keytool and jarsigner store
passwords, zip's and 7-Zip's passwords, rclone's remote credentials and PowerShell's
`Set-Variable`. Each was seen failing before its rule; the lines after them are what must
stay as written."""

from __future__ import annotations

import pytest

from memoryd.redact import redact

from .support import gone

SECRET = "Zx9Kq2Lm8Np4"


@pytest.mark.parametrize(
    "text",
    [
        f"gh secret set DB_PASSWORD <<EOF\n{SECRET}\nEOF\necho done",
        f"gh secret set DB_PASSWORD --repo acme/app <<'EOF'\n{SECRET}\nEOF",
        f"wrangler secret put STRIPE_KEY <<-END\n\t{SECRET}\n\tEND",
        f"  12→gh secret set TOKEN <<EOF\n  13→{SECRET}\n  14→EOF",
        f"npm config set //registry.npmjs.org/:_authToken {SECRET}",
        f"npm config set '//npm.pkg.github.com/:_authToken' '{SECRET}'",
        f"yarn config set npmAuthToken {SECRET}",
        f"npm config set _authToken={SECRET}",
        f"htpasswd -b .htpasswd admin {SECRET}",
        f"htpasswd -nbB admin {SECRET} > auth",
        f"openssl enc -aes-256-cbc -salt -k {SECRET} -in a.tar -out a.enc",
        f"keytool -genkeypair -alias app -storepass {SECRET} -keypass {SECRET} -keystore app.jks",
        f"jarsigner -keystore app.jks -storepass {SECRET} app.jar app",
        f"keytool -importkeystore -srcstorepass {SECRET} -deststorepass {SECRET}",
        f"zip -r -P {SECRET} backup.zip docs/",
        f"7z a -p{SECRET} -mhe=on backup.7z docs/",
        f"rclone config create s3 s3 access_key_id AKIAEXAMPLE secret_access_key {SECRET}",
        f"rclone config create gdrive drive client_id 123.apps client_secret {SECRET}",
        f"Set-Variable -Name ApiKey -Value '{SECRET}'",
        f'New-Variable -Name "dbPassword" -Value "{SECRET}" -Scope Script',
    ],
)
def test_a_secret_given_to_the_command_goes(text: str) -> None:
    out = gone(text, SECRET)
    assert "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        "gh secret set DB_PASSWORD < secret.txt",
        "cat <<EOF > notes.md\nThe password policy is twelve characters.\nEOF",
        "gh secret list <<EOF\nnothing here\nEOF",
        "npm config set registry https://registry.npmjs.org/",
        "npm config set save-exact true",
        "htpasswd -B .htpasswd admin",  # asks for the password
        "openssl enc -d -aes-256-cbc -in a.enc -out a.tar -pass env:ARCHIVE_PASS",
        "keytool -list -keystore app.jks -storepass $STORE_PASS",
        "zip -r backup.zip docs/ -x '*.tmp'",
        "7z a -p backup.7z docs/",  # -p alone asks for it
        "rclone config create s3 s3 provider AWS env_auth true",
        "Set-Variable -Name Region -Value 'eu-west-1'",
        "Set-Variable -Name ApiKey -Value $env:API_KEY",
        # the flags named in prose
        "use -storepass and -keypass flags with keytool",
        "I ran zip -P to encrypt the archive, then openssl -k and a passphrase.",
    ],
)
def test_the_same_commands_without_a_secret_stay(text: str) -> None:
    assert redact(text) == text


# A review of these rules (2026-11-29) found the lines below kept, or cut short, or their
# neighbours redacted; each was seen failing before its fix.
@pytest.mark.parametrize(
    "text",
    [
        f"cat <<EOF | gh secret set DB_PASSWORD\n{SECRET}\nEOF\n",
        f"cat <<'EOF' | npx wrangler secret put API_KEY\n{SECRET}\nEOF",
        f"kubectl create secret generic db --from-file=password=/dev/stdin <<EOF\n{SECRET}\nEOF\n",
        f"gh secret set TOKEN <<END-SECRET\n{SECRET}\nEND-SECRET",
        # quoted values with what would end an unquoted one
        "htpasswd -cb /etc/nginx/.htpasswd admin 'Tr0ub4dor&3'",
        "htpasswd -nbB admin 'Tr0ub4dor;3x'",
        "zip -P 'Tr0ub4dor 3x' a.zip f",
        '7z a -p"Tr0ub4dor 3x" a.7z d/',
        "openssl enc -aes-256-cbc -k 'Tr0ub4dor 3x' -in a -out b",
        "gh secret set DB_PASSWORD --body 'Tr0ub4dor&3'",
        "htpasswd -B -b -C 10 .htpasswd admin Tr0ub4dor3x",
        # flags combined, other binaries, options before the name
        "unzip -P Tr0ub4dor3x backup.zip",
        "zip -rP Tr0ub4dor3x b.zip d/",
        "7zz a -pTr0ub4dor3x b.7z d/",
        "npm config set -g //npm.pkg.github.com/:_authToken Tr0ub4dor3x",
        "npm config set --location=project //npm.pkg.github.com/:_authToken Tr0ub4dor3x",
        "rclone config create b2 b2 account=000abc key=Tr0ub4dor3x",
        # keytool over continued lines
        "keytool -importcert \\\n  -alias ca \\\n  -keystore truststore.jks \\\n"
        "  -storepass Tr0ub4dor3x \\\n  -noprompt",
        # a second review: what the first review's fixes let through
        "openssl.exe enc -aes-256-cbc -k Tr0ub4dor3x -in a -out b",
        "htpasswd -b .htpasswd admin Tr0ub4dor3x 2>/dev/null",
        "Run `htpasswd -nb admin Tr0ub4dor3x` then copy.",
    ],
)
def test_the_reviews_commands_go(text: str) -> None:
    out = gone(text, SECRET, "Tr0ub4dor", "3x")
    assert "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        "Set-Variable -Name ApiKey -Value (Get-Secret ApiKey -AsPlainText)",
        "Set-Variable -Name dbPassword -Value $securePassword",
        "The zip -P option is insecure because the password shows in ps.",
        "zip -P flag exposes passwords",
        "7z also has -p and -mhe=on flags",
        "After generating a cert with openssl, call curl with -k localhost to skip the check.",
        "htpasswd -bc .htpasswd admin",
    ],
)
def test_the_reviews_neighbours_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "htpasswd" + " -b" * 33_333,
        "htpasswd" + " -bB" * 3_000 + " x",
        "".join(f"gh secret set X <<E{i}\n" for i in range(20_000))[:100_000],
    ],
)
def test_hostile_inputs_stay_linear(text: str) -> None:
    """Inputs the review found slow (39 s and 0.5 s per 100 KB); a generous bound, so that a
    loaded machine does not fail it, that the quadratic case broke by a hundredfold."""
    import time

    start = time.perf_counter()
    redact(text)
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(
    "text",
    [
        "zip -r -P secret site.zip public/",
        "7z x -pSecret archive.7z",
        "openssl enc -aes-256-cbc -salt -in a -out b -k secret",
        "jarsigner -keystore k.jks -storepass secret -keypass secret app.jar mykey",
    ],
)
def test_a_password_that_is_a_plain_word_goes(text: str) -> None:
    """A second review (2026-11-29): words kept as a sentence's (`secret`, `password`) are
    passwords people give these flags."""
    assert redact(text).count("[REDACTED:") == text.count(" secret") + text.count("-pSecret")


@pytest.mark.parametrize(
    "text",
    [
        "npm set" + " --x=y" * 40,
        'gh secret set CONFIG --body "{' + '\\"k0\\": \\"v0\\", ' * 6000,
        "gh secret set X " + '"\\' * 30_000,
    ],
)
def test_the_second_reviews_slow_inputs_stay_linear(text: str) -> None:
    """An npm line of many options (exponential: 19 s at 163 characters) and quotes left open
    in a secrets command's arguments (quadratic: 29 s per 100 KB)."""
    import time

    start = time.perf_counter()
    redact(text[:100_000])
    assert time.perf_counter() - start < 2.0
