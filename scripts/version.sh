#!/bin/sh
# Prints the version `gestured --version` reports (gesturedVersion in
# Sources/GestureDaemon/Daemon.swift), without building: what the packages
# are numbered by (make deb, arch, rpm).
cd "$(dirname "$0")/.." && sed -n 's/^package let gesturedVersion = "\(.*\)"$/\1/p' Sources/GestureDaemon/Daemon.swift
