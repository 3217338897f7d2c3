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
