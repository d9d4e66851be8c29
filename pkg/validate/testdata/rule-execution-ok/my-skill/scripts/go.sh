#!/bin/sh
echo go
