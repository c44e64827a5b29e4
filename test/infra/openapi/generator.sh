#!/usr/bin/env bash
# openapi-generator-cli (pinned) from Maven Central with the machine's Java and Maven, fetched once into the local
# Maven repository; then runs it with the arguments given:
#   bash test/infra/openapi/generator.sh validate -i docs/openapi.json
set -euo pipefail
version=7.17.0
jar="${MAVEN_REPO:-$HOME/.m2/repository}/org/openapitools/openapi-generator-cli/$version/openapi-generator-cli-$version.jar"
if [ ! -f "$jar" ]; then
  command -v mvn >/dev/null 2>&1 || { echo "mvn is not installed (openapi-generator-cli is fetched from Maven Central with Maven)" >&2; exit 1; }
  mvn -q -B -Dstyle.color=never dependency:get -Dartifact="org.openapitools:openapi-generator-cli:$version" -Dtransitive=false >&2
fi
exec java -jar "$jar" "$@"
